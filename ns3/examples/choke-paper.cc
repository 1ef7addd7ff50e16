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
 *   choke-paper --qdisc=choke --udpRate=2Mbps --duration=100 --RngRun=1
 *
 * prints one JSON object on standard output: the UDP and TCP shares of the
 * bottleneck and Jain's index over the TCP flows (FlowMonitor's received
 * bytes of each data flow, counted with their 2-byte PPP headers as bytes
 * on the wire), the utilisation, the mean queue, drops and marks by reason
 * (QueueDisc::Stats), all for the measured period after the warm-up, and
 * the wall and CPU time of the run. Randomness is ns-3's: --RngSeed and
 * --RngRun choose the run, and every model's streams are assigned
 * (AssignStreams) so that a run does not depend on the order objects are
 * made in. --pcap=FILE writes what the bottleneck sends to a pcap file. Any
 * ns3::ChokeQueueDisc attribute can be changed from the command line too,
 * e.g. --ns3::ChokeQueueDisc::Draws=4 (the example sets MaxSize, MinTh,
 * MaxTh, Burst, LInterm, MeanPktSize and UseHardDrop itself; use --limit,
 * --minTh, --maxTh for those).
 */
#include "ns3/applications-module.h"
#include "ns3/choke-queue-disc.h"
#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const uint16_t TCP_PORT = 5000;
const uint16_t UDP_PORT = 9;
const uint32_t PPP_BYTES = 2; // the point-to-point header of every packet on the wire

struct Measure
{
    double warmup = 0;
    double qSum = 0;
    uint64_t qN = 0;
    QueueDisc::Stats atWarmup;                  // the queue disc's counters when measuring starts
    ChokeQueueDisc::ChokeStats chokeAtWarmup;   // libchoke's (ChokeQueueDisc only)
    std::map<FlowId, uint64_t> wireAtWarmup;    // FlowMonitor: bytes on the wire received
};

Measure g;

/* bytes a flow put on the bottleneck's wire, as its receiver got them */
uint64_t
WireBytes(const FlowMonitor::FlowStats& f)
{
    return f.rxBytes + PPP_BYTES * f.rxPackets;
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

/* Measuring starts: keep the counters, so that shares, drops and marks are
 * reported for the measured period only (as `choke sim` counts them). */
void
StartMeasuring(Ptr<QueueDisc> q, Ptr<FlowMonitor> mon)
{
    g.atWarmup = q->GetStats();
    if (Ptr<ChokeQueueDisc> c = DynamicCast<ChokeQueueDisc>(q))
    {
        g.chokeAtWarmup = c->GetChokeStats();
    }
    for (auto& kv : mon->GetFlowStats())
    {
        g.wireAtWarmup[kv.first] = WireBytes(kv.second);
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
    std::string pcap;
    DataRate udpRate("2Mbps");
    DataRate btlRate("1Mbps");
    uint32_t nTcp = 32, nUdp = 1, pktSize = 1000, limit = 300;
    double duration = 100, warmup = 20, minTh = 100, maxTh = 200;

    CommandLine cmd(__FILE__);
    cmd.Usage("The CHOKe paper's single link (32 TCP NewReno + 1 CBR UDP flow, 1 Mbit/s, "
              "300 packets, thresholds 100/200); prints one JSON object. The run is ns-3's "
              "--RngSeed and --RngRun.");
    cmd.AddValue("qdisc", "bottleneck queue disc: choke | red | fifo | fq_codel", qdisc);
    cmd.AddValue("udpRate", "total UDP rate on the wire (e.g. 2Mbps)", udpRate);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds not measured", warmup);
    cmd.AddValue("nTcp", "TCP flows", nTcp);
    cmd.AddValue("nUdp", "UDP flows (sharing udpRate)", nUdp);
    cmd.AddValue("btlRate", "bottleneck rate", btlRate);
    cmd.AddValue("limit", "buffer, packets", limit);
    cmd.AddValue("minTh", "MinTh, packets (choke, red)", minTh);
    cmd.AddValue("maxTh", "MaxTh, packets (choke, red)", maxTh);
    cmd.AddValue("pcap", "write the packets the bottleneck sends to this pcap file", pcap);
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
    if (!pcap.empty() && !std::ofstream(pcap, std::ios::binary))
    {
        return Fail("--pcap: cannot write \"" + pcap + "\"");
    }
    g.warmup = warmup;

    /* every data packet pktSize bytes on the wire, PPP header included */
    const uint32_t ipv4 = 20, tcph = 20, udph = 8;
    const uint32_t segSize = pktSize - PPP_BYTES - ipv4 - tcph;
    const uint32_t udpPayload = pktSize - PPP_BYTES - ipv4 - udph;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segSize));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(4));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));

    NodeContainer senders;
    NodeContainer receivers;
    NodeContainer routers;
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
         * device, no harddrop) */
        tch.SetRootQueueDisc("ns3::ChokeQueueDisc",
                             "MaxSize", StringValue(buffer),
                             "MinTh", DoubleValue(minTh),
                             "MaxTh", DoubleValue(maxTh),
                             "Burst", UintegerValue(limit),
                             "LInterm", DoubleValue(50),
                             "MeanPktSize", UintegerValue(pktSize),
                             "UseHardDrop", BooleanValue(false));
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
        addr.SetBase(Ipv4Address((10U << 24) | ((1 + i) << 8)), "255.255.255.0");
        addr.Assign(a);
        addr.SetBase(Ipv4Address((11U << 24) | ((1 + i) << 8)), "255.255.255.0");
        rxAddr.push_back(addr.Assign(b).GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    ApplicationContainer udpApps;
    for (uint32_t i = 0; i < nTcp; i++)
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(rxAddr[i], TCP_PORT));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(segSize));
        bulk.Install(senders.Get(i)).Start(Seconds(start->GetValue(0, 1)));
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), TCP_PORT));
        sink.Install(receivers.Get(i));
    }
    for (uint32_t i = nTcp; i < nTcp + nUdp; i++)
    {
        OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(rxAddr[i], UDP_PORT));
        /* the wire rate is udpRate / nUdp; the application's is smaller */
        double appRate = double(udpRate.GetBitRate()) / nUdp * udpPayload / pktSize;
        onoff.SetConstantRate(DataRate(uint64_t(appRate)), udpPayload);
        ApplicationContainer app = onoff.Install(senders.Get(i));
        app.Start(Seconds(0));
        udpApps.Add(app);
        PacketSinkHelper sink("ns3::UdpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), UDP_PORT));
        sink.Install(receivers.Get(i));
    }

    /* Fixed random streams for every model that draws (ns-3's rule for
     * reproducible runs): the TCP stacks, the applications, the start
     * times and the queue disc. --RngSeed and --RngRun select the run. */
    int64_t stream = 1;
    NodeContainer all(senders, receivers, routers);
    stream += stack.AssignStreams(all, stream);
    for (uint32_t i = 0; i < udpApps.GetN(); i++)
    {
        stream += DynamicCast<OnOffApplication>(udpApps.Get(i))->AssignStreams(stream);
    }
    start->SetStream(stream++);
    if (Ptr<ChokeQueueDisc> c = DynamicCast<ChokeQueueDisc>(qd.Get(0)))
    {
        stream += c->AssignStreams(stream);
    }
    else if (Ptr<RedQueueDisc> r = DynamicCast<RedQueueDisc>(qd.Get(0)))
    {
        stream += r->AssignStreams(stream);
    }

    FlowMonitorHelper fmh;
    NodeContainer ends(senders, receivers);
    Ptr<FlowMonitor> mon = fmh.Install(ends);
    if (!pcap.empty())
    {
        btl.EnablePcap(pcap, btlDev.Get(0), false, true);
    }
    Simulator::Schedule(MilliSeconds(5), &SampleQueue, qd.Get(0));
    Simulator::Schedule(Seconds(warmup), &StartMeasuring, qd.Get(0), mon);

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    Simulator::Run();
    std::clock_t c1 = std::clock();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double cpu = double(c1 - c0) / CLOCKS_PER_SEC;

    /* the data flows (to the sinks' ports; the ACKs come back from them) */
    double secs = duration - warmup;
    uint64_t tcpBytes = 0;
    uint64_t udpBytes = 0;
    double s = 0;
    double s2 = 0;
    uint32_t nTcpSeen = 0;
    Ptr<Ipv4FlowClassifier> cls = DynamicCast<Ipv4FlowClassifier>(fmh.GetClassifier());
    for (auto& kv : mon->GetFlowStats())
    {
        Ipv4FlowClassifier::FiveTuple t = cls->FindFlow(kv.first);
        auto it = g.wireAtWarmup.find(kv.first);
        uint64_t b = WireBytes(kv.second) - (it == g.wireAtWarmup.end() ? 0 : it->second);
        if (t.protocol == 6 && t.destinationPort == TCP_PORT)
        {
            tcpBytes += b;
            s += double(b);
            s2 += double(b) * double(b);
            nTcpSeen++;
        }
        else if (t.protocol == 17 && t.destinationPort == UDP_PORT)
        {
            udpBytes += b;
        }
    }
    /* a TCP flow that never got through counts as a zero in Jain's index */
    double total = double(tcpBytes + udpBytes);
    const QueueDisc::Stats& st = qd.Get(0)->GetStats();
    std::ostringstream o;
    o.precision(6);
    o << std::fixed;
    o << "{\"qdisc\":" << JsonString(qdisc);
    Ptr<ChokeQueueDisc> choke = DynamicCast<ChokeQueueDisc>(qd.Get(0));
    if (choke)
    {
        const char* kinds[] = {"choke", "red", "fifo"};
        o << ",\"discipline\":" << JsonString(kinds[choke->GetDiscipline()])
          << ",\"config\":" << JsonString(choke->GetConfigString());
    }
    o << ",\"udp_rate_bps\":" << udpRate.GetBitRate() << ",\"bottleneck_bps\":"
      << btlRate.GetBitRate() << ",\"tcp_flows\":" << nTcp << ",\"udp_flows\":" << nUdp
      << ",\"duration_s\":" << duration << ",\"warmup_s\":" << warmup
      << ",\"rng_seed\":" << RngSeedManager::GetSeed() << ",\"rng_run\":" << RngSeedManager::GetRun()
      << ",\"udp_share\":" << (total > 0 ? udpBytes / total : 0)
      << ",\"tcp_share\":" << (total > 0 ? tcpBytes / total : 0)
      << ",\"jain_tcp\":" << (s2 > 0 ? s * s / (nTcp * s2) : 0)
      << ",\"tcp_flows_seen\":" << nTcpSeen
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
        ChokeQueueDisc::ChokeStats c = choke->GetChokeStats();
        const ChokeQueueDisc::ChokeStats& w = g.chokeAtWarmup;
        o << ",\"libchoke\":{\"offered_pkts\":" << c.offered - w.offered
          << ",\"sent_pkts\":" << c.sent - w.sent << ",\"matched\":" << c.matched - w.matched
          << ",\"match_victims\":" << c.matchVictims - w.matchVictims
          << ",\"prob_drop\":" << c.probDrop - w.probDrop
          << ",\"forced_drop\":" << c.forcedDrop - w.forcedDrop
          << ",\"pdrop\":" << c.pdrop - w.pdrop << ",\"prob_mark\":" << c.probMark - w.probMark
          << ",\"forced_mark\":" << c.forcedMark - w.forcedMark << "}";
    }
    o << ",\"choke_version\":" << JsonString(CHOKE_VERSION); // the file VERSION
    o << ",\"events\":" << Simulator::GetEventCount() << ",\"wall_s\":" << wall
      << ",\"cpu_s\":" << cpu << "}";
    std::cout << o.str() << std::endl;
    if (choke)
    {
        for (auto& warning : choke->GetWarnings())
        {
            std::cerr << "choke-paper: warning: " << warning << std::endl;
        }
    }
    Simulator::Destroy();
    return 0;
}
