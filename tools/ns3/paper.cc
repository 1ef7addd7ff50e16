/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * The CHOKe paper's single-link scenario in ns-3 (3.37, Debian's
 * libns3-dev), to compare with `choke sim`: a comparison tool, not part of
 * the build (tools/ns3/build.sh compiles it).
 *
 *   N senders --access links--> L ==bottleneck (queue disc on L)==> R --> receivers
 *
 * TCP NewReno with classic recovery, no SACK, no timestamps, no delayed
 * ACKs, min RTO 1 s; UDP constant bit rate (OnOff, always on). Packet sizes
 * are chosen so that every data packet is `pktSize` bytes on the wire, PPP
 * header included, as in the simulator. The bottleneck device holds one
 * packet, so the queue disc is the queue. Measured: bytes each class sends
 * on the bottleneck after the warm-up (the link share), TCP sink bytes per
 * flow (Jain's index), the queue disc's length sampled every 10 ms, and
 * the speed: bottleneck packets (both directions) and events per
 * wall-clock second of Simulator::Run().
 *
 * Output: one JSON object on standard output.
 */
#include <chrono>
#include <ctime>
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/nix-vector-routing-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/traffic-control-module.h"

using namespace ns3;

namespace
{

struct Counters
{
    double warmup = 0;
    uint64_t btlPkts = 0; // both directions, whole run
    uint64_t tcpBytes = 0, udpBytes = 0, otherBytes = 0; // L->R, measured
    std::vector<uint64_t> sinkBytes;                     // per TCP flow, measured
    double qSum = 0;
    uint64_t qN = 0;
};

Counters g;

void
OnBottleneckTx(bool forward, Ptr<const Packet> p)
{
    g.btlPkts++;
    if (!forward || Simulator::Now().GetSeconds() < g.warmup)
        return;
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    c->RemoveHeader(ppp);
    c->PeekHeader(ip);
    if (ip.GetProtocol() == 6)
        g.tcpBytes += p->GetSize();
    else if (ip.GetProtocol() == 17)
        g.udpBytes += p->GetSize();
    else
        g.otherBytes += p->GetSize();
}

void
OnSinkRx(uint32_t i, Ptr<const Packet> p, const Address&)
{
    if (Simulator::Now().GetSeconds() >= g.warmup)
        g.sinkBytes[i] += p->GetSize();
}

void
SampleQueue(Ptr<QueueDisc> q, double period)
{
    if (Simulator::Now().GetSeconds() >= g.warmup)
    {
        g.qSum += q->GetNPackets();
        g.qN++;
    }
    Simulator::Schedule(Seconds(period), &SampleQueue, q, period);
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t nTcp = 32, nUdp = 1, pktSize = 1000, limit = 300, seed = 1;
    double udpRate = 2e6, btlRate = 1e6, accessRate = 10e6, udpAccessRate = 100e6;
    double btlDelayMs = 1, accessDelayMs = 1, duration = 100, warmup = 20;
    double minTh = 100, maxTh = 200, qw = 0.002, maxP = 0.02, minRto = 1.0, startSpread = 1.0;
    std::string queue = "red";
    bool gentle = false;
    bool payloadSizes = false;
    uint32_t sockBuf = 131072;
    bool nixRouting = false;
    bool weakEs = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("nTcp", "TCP flows", nTcp);
    cmd.AddValue("nUdp", "UDP flows (sharing udpRate)", nUdp);
    cmd.AddValue("udpRate", "total UDP rate on the wire, bit/s", udpRate);
    cmd.AddValue("btlRate", "bottleneck rate, bit/s", btlRate);
    cmd.AddValue("btlDelayMs", "bottleneck delay, ms", btlDelayMs);
    cmd.AddValue("accessRate", "TCP access link rate, bit/s", accessRate);
    cmd.AddValue("udpAccessRate", "UDP access link rate, bit/s", udpAccessRate);
    cmd.AddValue("accessDelayMs", "access link delay, ms", accessDelayMs);
    cmd.AddValue("pktSize", "bytes of a data packet on the wire", pktSize);
    cmd.AddValue("queue", "red | fifo", queue);
    cmd.AddValue("limit", "queue limit, packets", limit);
    cmd.AddValue("minTh", "RED MinTh, packets", minTh);
    cmd.AddValue("maxTh", "RED MaxTh, packets", maxTh);
    cmd.AddValue("qw", "RED QW", qw);
    cmd.AddValue("maxP", "RED max_p (LInterm = 1/maxP)", maxP);
    cmd.AddValue("gentle", "RED gentle mode", gentle);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds not measured", warmup);
    cmd.AddValue("minRto", "TCP minimum RTO, s", minRto);
    cmd.AddValue("startSpread", "TCP flows start uniformly in [0, startSpread] s", startSpread);
    cmd.AddValue("seed", "run number", seed);
    cmd.AddValue("nixRouting", "Nix-vector routing (else global routing)", nixRouting);
    cmd.AddValue("weakEs",
                 "routers check every interface's addresses for each packet (ns-3's "
                 "default weak end-system model; linear in the number of flows)",
                 weakEs);
    cmd.AddValue("sockBuf", "TCP send and receive buffers, bytes (ns-3's default)", sockBuf);
    cmd.AddValue("payloadSizes",
                 "pktSize is the TCP segment and UDP payload size (headers on top) and "
                 "udpRate the application's rate, as ns-3 users usually write it",
                 payloadSizes);
    cmd.Parse(argc, argv);
    g.warmup = warmup;
    g.sinkBytes.assign(nTcp, 0);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    const uint32_t ppp = 2, ipv4 = 20, tcph = 20, udph = 8;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
    const uint32_t segSize = payloadSizes ? pktSize : pktSize - ppp - ipv4 - tcph;
    const uint32_t udpPayload = payloadSizes ? pktSize : pktSize - ppp - ipv4 - udph;
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segSize));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(4));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sockBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(sockBuf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));

    NodeContainer senders, receivers, routers;
    senders.Create(nTcp + nUdp);
    receivers.Create(nTcp + nUdp);
    routers.Create(2);
    /* No packet is addressed to a router, so whether a router accepts a
     * packet for its own address on any interface (weak) or only on the one
     * it came in on (strong) changes no result; but the weak model walks all
     * of a router's 2N interfaces for every forwarded packet. */
    Config::SetDefault("ns3::Ipv4::WeakEsModel", BooleanValue(weakEs));
    InternetStackHelper stack;
    if (nixRouting)
    {
        /* path caching: global routing scans its whole table per packet,
         * which dominates with a thousand subnets */
        Ipv4NixVectorHelper nix;
        stack.SetRoutingHelper(nix);
    }
    stack.InstallAll();

    PointToPointHelper btl;
    btl.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(btlRate))));
    btl.SetChannelAttribute("Delay", TimeValue(MilliSeconds(btlDelayMs)));
    btl.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer btlDev = btl.Install(routers.Get(0), routers.Get(1));
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(btlDev); /* installs the default queue discs, replaced below */

    TrafficControlHelper tch;
    if (queue == "red")
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MinTh", DoubleValue(minTh),
                             "MaxTh", DoubleValue(maxTh),
                             "MaxSize", StringValue(std::to_string(limit) + "p"),
                             "QW", DoubleValue(qw),
                             "LInterm", DoubleValue(1.0 / maxP),
                             "MeanPktSize", UintegerValue(pktSize),
                             "Gentle", BooleanValue(gentle),
                             "Wait", BooleanValue(true),
                             "LinkBandwidth", DataRateValue(DataRate(uint64_t(btlRate))),
                             "LinkDelay", TimeValue(MilliSeconds(btlDelayMs)));
    }
    else if (queue == "fifo")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                             StringValue(std::to_string(limit) + "p"));
    }
    else
    {
        std::fprintf(stderr, "paper: --queue must be red or fifo\n");
        return 1;
    }
    tch.Uninstall(btlDev);
    QueueDiscContainer qd = tch.Install(btlDev.Get(0));
    TrafficControlHelper rev;
    rev.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("100000p"));
    rev.Install(btlDev.Get(1));

    std::vector<Ipv4Address> rxAddr;
    for (uint32_t i = 0; i < nTcp + nUdp; i++)
    {
        PointToPointHelper acc;
        bool udp = i >= nTcp;
        acc.SetDeviceAttribute("DataRate",
                               DataRateValue(DataRate(uint64_t(udp ? udpAccessRate : accessRate))));
        acc.SetChannelAttribute("Delay", TimeValue(MilliSeconds(accessDelayMs)));
        acc.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1000p"));
        NetDeviceContainer a = acc.Install(senders.Get(i), routers.Get(0));
        PointToPointHelper out;
        out.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(100 * btlRate))));
        out.SetChannelAttribute("Delay", TimeValue(MicroSeconds(0)));
        NetDeviceContainer b = out.Install(routers.Get(1), receivers.Get(i));
        char base[32];
        std::snprintf(base, sizeof(base), "10.%u.%u.0", 1 + (i >> 8), i & 255);
        addr.SetBase(base, "255.255.255.0");
        addr.Assign(a);
        std::snprintf(base, sizeof(base), "10.%u.%u.0", 100 + (i >> 8), i & 255);
        addr.SetBase(base, "255.255.255.0");
        Ipv4InterfaceContainer bi = addr.Assign(b);
        rxAddr.push_back(bi.GetAddress(1));
    }
    if (!nixRouting)
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    for (uint32_t i = 0; i < nTcp; i++)
    {
        uint16_t port = 5000;
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(rxAddr[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(segSize));
        ApplicationContainer s = bulk.Install(senders.Get(i));
        s.Start(Seconds(start->GetValue(0, startSpread)));
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer k = sink.Install(receivers.Get(i));
        k.Start(Seconds(0));
        k.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, i));
    }
    for (uint32_t i = nTcp; i < nTcp + nUdp; i++)
    {
        uint16_t port = 9;
        uint32_t payload = udpPayload;
        OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(rxAddr[i], port));
        onoff.SetAttribute("PacketSize", UintegerValue(payload));
        /* the wire rate is udpRate / nUdp: the application's is smaller */
        double appRate = payloadSizes ? udpRate / nUdp : udpRate / nUdp * payload / pktSize;
        onoff.SetConstantRate(DataRate(uint64_t(appRate)), payload);
        ApplicationContainer s = onoff.Install(senders.Get(i));
        s.Start(Seconds(0));
        PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        sink.Install(receivers.Get(i)).Start(Seconds(0));
    }

    btlDev.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&OnBottleneckTx, true));
    btlDev.Get(1)->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&OnBottleneckTx, false));
    Simulator::Schedule(Seconds(0.005), &SampleQueue, qd.Get(0), 0.01);

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    Simulator::Run();
    std::clock_t c1 = std::clock();
    auto t1 = std::chrono::steady_clock::now();
    double wall = std::chrono::duration<double>(t1 - t0).count();
    double cpu = double(c1 - c0) / CLOCKS_PER_SEC;
    uint64_t events = Simulator::GetEventCount();

    double secs = duration - warmup;
    double total = double(g.tcpBytes + g.udpBytes + g.otherBytes);
    double s = 0, s2 = 0, bmin = 1e300, bmax = 0;
    for (uint64_t b : g.sinkBytes)
    {
        s += double(b);
        s2 += double(b) * double(b);
        bmin = std::min(bmin, double(b));
        bmax = std::max(bmax, double(b));
    }
    if (g.sinkBytes.empty())
        bmin = 0;
    QueueDisc::Stats st = qd.Get(0)->GetStats();
    std::printf("{\"queue\":\"%s\",\"gentle\":%s,\"tcp_flows\":%u,\"udp_flows\":%u,"
                "\"udp_rate_bps\":%.0f,\"bottleneck_bps\":%.0f,\"seed\":%u,"
                "\"utilization\":%.6f,\"share\":{\"tcp\":%.6f,\"udp\":%.6f},"
                "\"jain_tcp\":%.6f,\"tcp_goodput_mbps\":{\"min\":%.5f,\"max\":%.5f},"
                "\"queue_mean_pkts\":%.3f,\"drops\":%u,"
                "\"events\":%llu,\"bottleneck_pkts\":%llu,\"wall_s\":%.3f,\"cpu_s\":%.3f,"
                "\"events_per_s\":%.0f,\"bottleneck_pkts_per_s\":%.0f,"
                "\"bottleneck_pkts_per_cpu_s\":%.0f}\n",
                queue.c_str(), gentle ? "true" : "false", nTcp, nUdp, udpRate, btlRate, seed,
                total * 8 / (btlRate * secs), total > 0 ? g.tcpBytes / total : 0,
                total > 0 ? g.udpBytes / total : 0,
                s2 > 0 ? s * s / (nTcp * s2) : 0, bmin * 8 / secs / 1e6, bmax * 8 / secs / 1e6,
                g.qN ? g.qSum / g.qN : 0,
                st.nTotalDroppedPackets, (unsigned long long)events,
                (unsigned long long)g.btlPkts, wall, cpu, events / wall, g.btlPkts / wall,
                g.btlPkts / cpu);
    Simulator::Destroy();
    return 0;
}
