/* SPDX-License-Identifier: GPL-2.0-only */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * choke-paper: the single-link experiment of the CHOKe paper (Pan,
 * Prabhakar and Psounis, INFOCOM 2000) in ns-3, with the bottleneck queue
 * disc chosen on the command line: ns3::ChokeQueueDisc (libchoke), ns-3's
 * RED, a FIFO or ns-3's FQ-CoDel.
 *
 *   32 TCP senders --10 Mbit/s, 1 ms--> L ==1 Mbit/s, 1 ms==> R --> receivers
 *    1 UDP sender  --100 Mbit/s, 1 ms-/
 *
 * The scenario is `choke sim paper-single-link` (scenarios/): TCP NewReno
 * with classic recovery, no SACK, no timestamps, no delayed ACKs, initial
 * window 4, minimum RTO 1 s; one constant-bit-rate UDP flow; every data
 * packet 1000 bytes on the wire, PPP header included; a 300-packet buffer
 * with thresholds 100/200; 100 s, the first 20 s not measured. The
 * bottleneck device holds one packet, so the queue disc is the queue.
 *
 *   choke-paper --qdisc=choke --udpRate=2Mbps --duration=100 --seed=1
 *
 * prints one JSON object on standard output: the UDP and TCP shares of the
 * bottleneck, Jain's index over the TCP flows' goodput, the utilisation,
 * the mean queue, drops and marks by reason (QueueDisc::Stats), all for the
 * measured period after the warm-up, and the wall and CPU time of the run. Any
 * ns3::ChokeQueueDisc attribute can be changed from the command line too,
 * e.g. --ns3::ChokeQueueDisc::Draws=4 (the example sets MaxSize, MinTh,
 * MaxTh, Burst, LInterm and MeanPktSize itself; use --limit, --minTh,
 * --maxTh for those).
 */
#include "ns3/applications-module.h"
#include "ns3/choke-queue-disc.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Measure
{
    double warmup = 0;
    uint64_t tcpBytes = 0, udpBytes = 0, otherBytes = 0; // bottleneck, forward, measured
    uint64_t btlPkts = 0;                                // bottleneck, both directions
    std::vector<uint64_t> sinkBytes;                     // per TCP flow, measured
    double qSum = 0;
    uint64_t qN = 0;
    QueueDisc::Stats atWarmup;       // the queue disc's counters when measuring starts
    struct choke_stats chokeAtWarmup = {}; // libchoke's (ChokeQueueDisc only)
};

Measure g;

void
OnBottleneckTx(bool forward, Ptr<const Packet> p)
{
    g.btlPkts++;
    if (!forward || Simulator::Now().GetSeconds() < g.warmup)
    {
        return;
    }
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    c->RemoveHeader(ppp);
    c->PeekHeader(ip);
    uint64_t& b = ip.GetProtocol() == 6 ? g.tcpBytes : ip.GetProtocol() == 17 ? g.udpBytes
                                                                                : g.otherBytes;
    b += p->GetSize();
}

void
OnSinkRx(uint32_t i, Ptr<const Packet> p, const Address&)
{
    if (Simulator::Now().GetSeconds() >= g.warmup)
    {
        g.sinkBytes[i] += p->GetSize();
    }
}

void
SampleQueue(Ptr<QueueDisc> q)
{
    if (Simulator::Now().GetSeconds() >= g.warmup)
    {
        g.qSum += q->GetNPackets();
        g.qN++;
    }
    Simulator::Schedule(MilliSeconds(10), &SampleQueue, q);
}

/* Measuring starts: keep the counters, so that drops and marks are
 * reported for the measured period only, like the shares (and like
 * `choke sim`, whose counters start at the warm-up). */
void
StartMeasuring(Ptr<QueueDisc> q)
{
    g.atWarmup = q->GetStats();
    if (Ptr<ChokeQueueDisc> c = DynamicCast<ChokeQueueDisc>(q))
    {
        g.chokeAtWarmup = c->GetChokeStats();
    }
}

/* m minus what it held at the warm-up, per key */
template <typename M>
M
Since(const M& now, const M& before)
{
    M d;
    for (auto& kv : now)
    {
        auto it = before.find(kv.first);
        auto v = kv.second - (it == before.end() ? 0 : it->second);
        if (v)
        {
            d[kv.first] = v;
        }
    }
    return d;
}

std::string
JsonString(const std::string& s)
{
    std::string o = "\"";
    for (unsigned char c : s)
    {
        if (c == '"' || c == '\\')
        {
            o += '\\';
            o += static_cast<char>(c);
        }
        else if (c < 0x20)
        {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            o += buf;
        }
        else
        {
            o += static_cast<char>(c);
        }
    }
    return o + "\"";
}

template <typename M>
std::string
JsonMap(const M& m)
{
    std::ostringstream o;
    o << "{";
    bool first = true;
    for (auto& kv : m)
    {
        o << (first ? "" : ",") << JsonString(kv.first) << ":" << kv.second;
        first = false;
    }
    o << "}";
    return o.str();
}

int
Fail(const std::string& msg)
{
    std::cerr << "choke-paper: " << msg << std::endl;
    return 1;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string qdisc = "choke";
    DataRate udpRate("2Mbps");
    DataRate btlRate("1Mbps");
    uint32_t nTcp = 32, nUdp = 1, pktSize = 1000, limit = 300, seed = 1;
    double duration = 100, warmup = 20, minTh = 100, maxTh = 200;

    CommandLine cmd(__FILE__);
    cmd.Usage("The CHOKe paper's single link (32 TCP NewReno + 1 CBR UDP flow, 1 Mbit/s, "
              "300 packets, thresholds 100/200); prints one JSON object.");
    cmd.AddValue("qdisc", "bottleneck queue disc: choke | red | fifo | fq_codel", qdisc);
    cmd.AddValue("udpRate", "total UDP rate on the wire (e.g. 2Mbps)", udpRate);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds not measured", warmup);
    cmd.AddValue("seed", "run number (RngSeedManager::SetRun)", seed);
    cmd.AddValue("nTcp", "TCP flows", nTcp);
    cmd.AddValue("nUdp", "UDP flows (sharing udpRate)", nUdp);
    cmd.AddValue("btlRate", "bottleneck rate", btlRate);
    cmd.AddValue("limit", "buffer, packets", limit);
    cmd.AddValue("minTh", "MinTh, packets (choke, red)", minTh);
    cmd.AddValue("maxTh", "MaxTh, packets (choke, red)", maxTh);
    cmd.Parse(argc, argv);

    if (qdisc != "choke" && qdisc != "red" && qdisc != "fifo" && qdisc != "fq_codel")
    {
        return Fail("--qdisc must be choke, red, fifo or fq_codel, not \"" + qdisc + "\"");
    }
    if (!(duration > 0) || !(warmup >= 0) || warmup >= duration)
    {
        return Fail("need 0 <= --warmup < --duration");
    }
    if (nTcp + nUdp == 0 || nTcp + nUdp > 250)
    {
        return Fail("need 1 to 250 flows in all (--nTcp, --nUdp)");
    }
    if (btlRate.GetBitRate() == 0 || (nUdp && udpRate.GetBitRate() == 0))
    {
        return Fail("--btlRate and --udpRate must be positive");
    }
    if (limit == 0)
    {
        return Fail("--limit must be positive");
    }
    g.warmup = warmup;
    g.sinkBytes.assign(nTcp, 0);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    /* every data packet pktSize bytes on the wire, PPP header included */
    const uint32_t ppp = 2, ipv4 = 20, tcph = 20, udph = 8;
    const uint32_t segSize = pktSize - ppp - ipv4 - tcph;
    const uint32_t udpPayload = pktSize - ppp - ipv4 - udph;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segSize));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(4));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));

    NodeContainer senders, receivers, routers;
    senders.Create(nTcp + nUdp);
    receivers.Create(nTcp + nUdp);
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper btl;
    btl.SetDeviceAttribute("DataRate", DataRateValue(btlRate));
    btl.SetChannelAttribute("Delay", TimeValue(MilliSeconds(1)));
    btl.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer btlDev = btl.Install(routers.Get(0), routers.Get(1));

    std::string buffer = std::to_string(limit) + "p";
    TrafficControlHelper tch;
    if (qdisc == "choke")
    {
        /* the same words as the simulator's queue: limit 300 min 100 max
         * 200 burst 300 probability 0.02 (avpkt 1000, bandwidth from the
         * device) */
        tch.SetRootQueueDisc("ns3::ChokeQueueDisc",
                             "MaxSize", StringValue(buffer),
                             "MinTh", DoubleValue(minTh),
                             "MaxTh", DoubleValue(maxTh),
                             "Burst", UintegerValue(limit),
                             "LInterm", DoubleValue(50),
                             "MeanPktSize", UintegerValue(pktSize));
    }
    else if (qdisc == "red")
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", StringValue(buffer),
                             "MinTh", DoubleValue(minTh),
                             "MaxTh", DoubleValue(maxTh),
                             "QW", DoubleValue(0.002),
                             "LInterm", DoubleValue(50),
                             "MeanPktSize", UintegerValue(pktSize),
                             "Gentle", BooleanValue(false),
                             "LinkBandwidth", DataRateValue(btlRate),
                             "LinkDelay", TimeValue(MilliSeconds(1)));
    }
    else if (qdisc == "fifo")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(buffer));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", StringValue(buffer));
    }
    QueueDiscContainer qd = tch.Install(btlDev.Get(0));
    TrafficControlHelper rev;
    rev.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("100000p"));
    rev.Install(btlDev.Get(1));
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(btlDev);

    std::vector<Ipv4Address> rxAddr;
    for (uint32_t i = 0; i < nTcp + nUdp; i++)
    {
        bool udp = i >= nTcp;
        PointToPointHelper acc;
        acc.SetDeviceAttribute("DataRate",
                               DataRateValue(udp ? DataRate(100 * btlRate.GetBitRate())
                                                 : DataRate(10 * btlRate.GetBitRate())));
        acc.SetChannelAttribute("Delay", TimeValue(MilliSeconds(1)));
        acc.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1000p"));
        NetDeviceContainer a = acc.Install(senders.Get(i), routers.Get(0));
        PointToPointHelper out;
        out.SetDeviceAttribute("DataRate", DataRateValue(DataRate(100 * btlRate.GetBitRate())));
        out.SetChannelAttribute("Delay", TimeValue(MicroSeconds(0)));
        NetDeviceContainer b = out.Install(routers.Get(1), receivers.Get(i));
        addr.SetBase(Ipv4Address((10u << 24) | ((1 + i) << 8)), "255.255.255.0");
        addr.Assign(a);
        addr.SetBase(Ipv4Address((11u << 24) | ((1 + i) << 8)), "255.255.255.0");
        rxAddr.push_back(addr.Assign(b).GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    for (uint32_t i = 0; i < nTcp; i++)
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(rxAddr[i], 5000));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(segSize));
        bulk.Install(senders.Get(i)).Start(Seconds(start->GetValue(0, 1)));
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), 5000));
        ApplicationContainer k = sink.Install(receivers.Get(i));
        k.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, i));
    }
    for (uint32_t i = nTcp; i < nTcp + nUdp; i++)
    {
        OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(rxAddr[i], 9));
        /* the wire rate is udpRate / nUdp; the application's is smaller */
        double appRate = double(udpRate.GetBitRate()) / nUdp * udpPayload / pktSize;
        onoff.SetConstantRate(DataRate(uint64_t(appRate)), udpPayload);
        onoff.Install(senders.Get(i)).Start(Seconds(0));
        PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
        sink.Install(receivers.Get(i));
    }

    btlDev.Get(0)->TraceConnectWithoutContext("PhyTxBegin",
                                              MakeBoundCallback(&OnBottleneckTx, true));
    btlDev.Get(1)->TraceConnectWithoutContext("PhyTxBegin",
                                              MakeBoundCallback(&OnBottleneckTx, false));
    Simulator::Schedule(MilliSeconds(5), &SampleQueue, qd.Get(0));
    Simulator::Schedule(Seconds(warmup), &StartMeasuring, qd.Get(0));

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    Simulator::Run();
    std::clock_t c1 = std::clock();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double cpu = double(c1 - c0) / CLOCKS_PER_SEC;

    double secs = duration - warmup;
    double total = double(g.tcpBytes + g.udpBytes + g.otherBytes);
    double s = 0, s2 = 0;
    for (uint64_t b : g.sinkBytes)
    {
        s += double(b);
        s2 += double(b) * double(b);
    }
    const QueueDisc::Stats& st = qd.Get(0)->GetStats();
    std::ostringstream o;
    o.precision(6);
    o << std::fixed;
    o << "{\"qdisc\":" << JsonString(qdisc);
    Ptr<ChokeQueueDisc> choke = DynamicCast<ChokeQueueDisc>(qd.Get(0));
    if (choke)
    {
        const char* kinds[] = {"choke", "red", "fifo"};
        uint8_t kind = choke->GetChokeConfig().kind;
        o << ",\"discipline\":" << JsonString(kind < 3 ? kinds[kind] : "?")
          << ",\"config\":" << JsonString(choke->GetConfigString());
    }
    o << ",\"udp_rate_bps\":" << udpRate.GetBitRate() << ",\"bottleneck_bps\":"
      << btlRate.GetBitRate() << ",\"tcp_flows\":" << nTcp << ",\"udp_flows\":" << nUdp
      << ",\"duration_s\":" << duration << ",\"warmup_s\":" << warmup << ",\"seed\":" << seed
      << ",\"udp_share\":" << (total > 0 ? g.udpBytes / total : 0)
      << ",\"tcp_share\":" << (total > 0 ? g.tcpBytes / total : 0)
      << ",\"jain_tcp\":" << (s2 > 0 ? s * s / (nTcp * s2) : 0)
      << ",\"utilization\":" << total * 8 / (btlRate.GetBitRate() * secs)
      << ",\"queue_mean_pkts\":" << (g.qN ? g.qSum / g.qN : 0)
      << ",\"drops\":{\"before_enqueue\":"
      << JsonMap(Since(st.nDroppedPacketsBeforeEnqueue, g.atWarmup.nDroppedPacketsBeforeEnqueue))
      << ",\"after_dequeue\":"
      << JsonMap(Since(st.nDroppedPacketsAfterDequeue, g.atWarmup.nDroppedPacketsAfterDequeue))
      << ",\"total\":" << st.nTotalDroppedPackets - g.atWarmup.nTotalDroppedPackets << "}"
      << ",\"marks\":" << JsonMap(Since(st.nMarkedPackets, g.atWarmup.nMarkedPackets));
    if (choke)
    {
        const struct choke_stats& c = choke->GetChokeStats();
        const struct choke_stats& w = g.chokeAtWarmup;
        o << ",\"libchoke\":{\"offered_pkts\":" << c.offered_pkts - w.offered_pkts
          << ",\"sent_pkts\":" << c.sent_pkts - w.sent_pkts
          << ",\"matched\":" << c.matched - w.matched
          << ",\"match_victims\":" << c.match_victims - w.match_victims
          << ",\"prob_drop\":" << c.prob_drop - w.prob_drop
          << ",\"forced_drop\":" << c.forced_drop - w.forced_drop
          << ",\"pdrop\":" << c.pdrop - w.pdrop << ",\"prob_mark\":" << c.prob_mark - w.prob_mark
          << ",\"forced_mark\":" << c.forced_mark - w.forced_mark << "}";
    }
    o << ",\"choke_version\":" << JsonString(CHOKE_VERSION); // the file VERSION
    o << ",\"bottleneck_pkts\":" << g.btlPkts << ",\"events\":" << Simulator::GetEventCount()
      << ",\"wall_s\":" << wall << ",\"cpu_s\":" << cpu << "}";
    std::cout << o.str() << std::endl;
    if (choke)
    {
        for (auto& w : choke->GetWarnings())
        {
            std::cerr << "choke-paper: warning: " << w << std::endl;
        }
    }
    Simulator::Destroy();
    return 0;
}
