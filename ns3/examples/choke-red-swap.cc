/* SPDX-License-Identifier: GPL-2.0-only */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * choke-red-swap: a RED experiment script, written the way RED's are
 * (every queue parameter through Config::SetDefault on the queue disc's
 * TypeId, RED's research attributes included: Gentle, Wait, LinkDelay,
 * ARED, AdaptMaxP, TargetDelay and ARED's Interval, Top, Bottom, Alpha,
 * Beta), run with --queueDisc=RedQueueDisc or --queueDisc=ChokeQueueDisc:
 * the only change a researcher makes to move a RED script to CHOKe.
 *
 *   n TCP senders --10 Mbit/s, 2 ms--> R1 ==1.5 Mbit/s, 20 ms==> R2 --> sink
 *   (one of them also sends a CBR UDP flow)
 *
 *   choke-red-swap --queueDisc=ChokeQueueDisc --mode=ared
 *
 * Modes, as RED's examples set them: red (MinTh 5, MaxTh 15, QW 0.002,
 * not gentle, no wait), gentle (Gentle and Wait), ared (ARED: automatic
 * thresholds and weight, LInterm 10, the probability adapted every 500 ms),
 * ared-ecn (ARED with ECN on the TCP flows), adapt (AdaptMaxP with QW -1
 * from LinkDelay). Prints one line per run: the queue disc, the mode, the
 * bottleneck's utilisation, the UDP flow's share, drops and marks by
 * reason, and for ChokeQueueDisc its configuration and the probability at
 * MaxTh at the end (ARED moves it). The run is ns-3's --RngRun.
 */
#include "ns3/applications-module.h"
#include "ns3/choke-queue-disc.h"
#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <iostream>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/* "k1=v1 k2=v2" for a Stats map */
template <typename M>
std::string
Reasons(const M& m)
{
    std::ostringstream o;
    for (auto& kv : m)
    {
        o << (o.tellp() ? " " : "") << "\"" << kv.first << "\"=" << kv.second;
    }
    return o.tellp() ? o.str() : "none";
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string queueDisc = "RedQueueDisc";
    std::string mode = "ared";
    uint32_t nTcp = 8;
    double duration = 20;
    std::string bottleneckRate = "1.5Mbps";
    std::string bottleneckDelay = "20ms";
    std::string udpRate = "0.5Mbps";

    CommandLine cmd(__FILE__);
    cmd.Usage("A RED experiment script run with RedQueueDisc or ChokeQueueDisc.");
    cmd.AddValue("queueDisc", "RedQueueDisc or ChokeQueueDisc", queueDisc);
    cmd.AddValue("mode", "red | gentle | ared | ared-ecn | adapt", mode);
    cmd.AddValue("nTcp", "TCP flows", nTcp);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("udpRate", "the CBR UDP flow's rate", udpRate);
    cmd.Parse(argc, argv);
    if (queueDisc != "RedQueueDisc" && queueDisc != "ChokeQueueDisc")
    {
        std::cerr << "choke-red-swap: --queueDisc must be RedQueueDisc or ChokeQueueDisc"
                  << std::endl;
        return 1;
    }
    if (mode != "red" && mode != "gentle" && mode != "ared" && mode != "ared-ecn" &&
        mode != "adapt")
    {
        std::cerr << "choke-red-swap: --mode must be red, gentle, ared, ared-ecn or adapt"
                  << std::endl;
        return 1;
    }
    if (nTcp < 1 || nTcp > 100 || !(duration > 5))
    {
        std::cerr << "choke-red-swap: need 1 to 100 TCP flows and more than 5 s" << std::endl;
        return 1;
    }

    /* the RED script's own settings, on whichever TypeId was chosen */
    std::string q = "ns3::" + queueDisc + "::";
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1000 - 42));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault(q + "MaxSize", StringValue("25p"));
    Config::SetDefault(q + "MeanPktSize", UintegerValue(1000));
    Config::SetDefault(q + "LinkBandwidth", StringValue(bottleneckRate));
    Config::SetDefault(q + "LinkDelay", StringValue(bottleneckDelay));
    Config::SetDefault(q + "Gentle", BooleanValue(false));
    Config::SetDefault(q + "Wait", BooleanValue(false));
    Config::SetDefault(q + "QW", DoubleValue(0.002));
    Config::SetDefault(q + "MinTh", DoubleValue(5));
    Config::SetDefault(q + "MaxTh", DoubleValue(15));
    if (mode == "gentle")
    {
        Config::SetDefault(q + "Gentle", BooleanValue(true));
        Config::SetDefault(q + "Wait", BooleanValue(true));
    }
    else if (mode == "ared" || mode == "ared-ecn")
    {
        Config::SetDefault(q + "ARED", BooleanValue(true));
        Config::SetDefault(q + "LInterm", DoubleValue(10));
        Config::SetDefault(q + "TargetDelay", TimeValue(Seconds(0.005)));
        /* ARED's knobs at Floyd's values */
        Config::SetDefault(q + "Interval", TimeValue(Seconds(0.5)));
        Config::SetDefault(q + "Top", DoubleValue(0.5));
        Config::SetDefault(q + "Bottom", DoubleValue(0.0));
        Config::SetDefault(q + "Alpha", DoubleValue(0.01));
        Config::SetDefault(q + "Beta", DoubleValue(0.9));
        if (mode == "ared-ecn")
        {
            Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
            Config::SetDefault(q + "UseEcn", BooleanValue(true));
            Config::SetDefault(q + "UseHardDrop", BooleanValue(false));
        }
    }
    else if (mode == "adapt")
    {
        Config::SetDefault(q + "AdaptMaxP", BooleanValue(true));
        Config::SetDefault(q + "QW", DoubleValue(-1.0));
        Config::SetDefault(q + "LInterm", DoubleValue(10));
    }
    /* the command line may change any of them again */
    cmd.Parse(argc, argv);

    NodeContainer senders;
    senders.Create(nTcp);
    NodeContainer routers;
    routers.Create(2);
    NodeContainer sink;
    sink.Create(1);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper btl;
    btl.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    btl.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    btl.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer bd = btl.Install(routers.Get(0), routers.Get(1));
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::" + queueDisc);
    QueueDiscContainer qd = tch.Install(bd.Get(0));

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(bd);
    PointToPointHelper acc;
    acc.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    acc.SetChannelAttribute("Delay", StringValue("2ms"));
    for (uint32_t i = 0; i < nTcp; i++)
    {
        NetDeviceContainer d = acc.Install(senders.Get(i), routers.Get(0));
        addr.SetBase(Ipv4Address((10U << 24) | ((1 + i) << 8)), "255.255.255.0");
        addr.Assign(d);
    }
    NetDeviceContainer sd = acc.Install(routers.Get(1), sink.Get(0));
    addr.SetBase("10.200.0.0", "255.255.255.0");
    Ipv4Address dst = addr.Assign(sd).GetAddress(1);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    ApplicationContainer apps;
    for (uint32_t i = 0; i < nTcp; i++)
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dst, 5000 + i));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer a = bulk.Install(senders.Get(i));
        a.Start(Seconds(0.05 * i));
        apps.Add(a);
        PacketSinkHelper ps("ns3::TcpSocketFactory",
                            InetSocketAddress(Ipv4Address::GetAny(), 5000 + i));
        ps.Install(sink.Get(0));
    }
    OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(dst, 9));
    onoff.SetConstantRate(DataRate(udpRate), 1000 - 28);
    ApplicationContainer udp = onoff.Install(senders.Get(0));
    udp.Start(Seconds(1));
    PacketSinkHelper us("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
    us.Install(sink.Get(0));

    int64_t stream = 1;
    NodeContainer all(senders, routers, sink);
    stream += stack.AssignStreams(all, stream);
    stream += DynamicCast<OnOffApplication>(udp.Get(0))->AssignStreams(stream);
    if (Ptr<ChokeQueueDisc> c = DynamicCast<ChokeQueueDisc>(qd.Get(0)))
    {
        stream += c->AssignStreams(stream);
    }
    else if (Ptr<RedQueueDisc> r = DynamicCast<RedQueueDisc>(qd.Get(0)))
    {
        stream += r->AssignStreams(stream);
    }

    FlowMonitorHelper fmh;
    NodeContainer ends(senders, sink);
    Ptr<FlowMonitor> mon = fmh.Install(ends);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    uint64_t tcp = 0;
    uint64_t udpBytes = 0;
    Ptr<Ipv4FlowClassifier> cls = DynamicCast<Ipv4FlowClassifier>(fmh.GetClassifier());
    for (auto& kv : mon->GetFlowStats())
    {
        Ipv4FlowClassifier::FiveTuple t = cls->FindFlow(kv.first);
        if (t.destinationAddress != dst)
        {
            continue; // the ACKs
        }
        (t.protocol == 17 ? udpBytes : tcp) += kv.second.rxBytes;
    }
    double util = (tcp + udpBytes) * 8.0 / (DataRate(bottleneckRate).GetBitRate() * duration);
    const QueueDisc::Stats& st = qd.Get(0)->GetStats();
    std::cout << queueDisc << " " << mode << ": utilization " << util << ", udp share "
              << (tcp + udpBytes ? double(udpBytes) / double(tcp + udpBytes) : 0)
              << ", drops {" << Reasons(st.nDroppedPacketsBeforeEnqueue) << "}"
              << " after dequeue {" << Reasons(st.nDroppedPacketsAfterDequeue) << "}"
              << ", marks {" << Reasons(st.nMarkedPackets) << "}";
    if (Ptr<ChokeQueueDisc> c = DynamicCast<ChokeQueueDisc>(qd.Get(0)))
    {
        std::cout << ", config \"" << c->GetConfigString() << "\", maxP " << c->GetMaxP();
    }
    std::cout << std::endl;
    Simulator::Destroy();
    return 0;
}
