/* SPDX-License-Identifier: GPL-2.0-only */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * Tests of ns3::ChokeQueueDisc, in ns-3's style: the unit suite
 * "choke-queue-disc" (queue discs driven directly) and the system suite
 * "choke-queue-disc-system" (TCP through real devices). Run by
 * build/ns3/choke-ns3-tests (make check-ns3) or, in an ns-3 source tree, by
 * `./test.py -s choke-queue-disc` and `-s choke-queue-disc-system`. The
 * counts behind each case are logged at NS_LOG's info level:
 * NS_LOG=ChokeQueueDiscTestSuite=info.
 *
 *  - decisions: a recorded sequence of arrivals (IPv4, IPv6 and non-IP
 *    flows, ECN-capable or not, idle gaps) and departures is fed to the
 *    queue disc and to a bare libchoke instance with the same configuration
 *    and the same random numbers; every verdict, victim, mark, dequeued
 *    packet and counter must be the same (CHOKe, its variants, byte mode,
 *    RED and FIFO);
 *  - drop reasons: QueueDisc::Stats per reason, and the trace sources,
 *    against libchoke's counters;
 *  - conservation: ns-3's identities and libchoke's after every operation;
 *  - match drops only when the average is above MinTh;
 *  - ECN marking, UseHardDrop; the limit in packets and in bytes;
 *  - the attributes: tc's derivation, RED's attribute names, bad input;
 *  - a small dumbbell with real devices (LinkBandwidth from the device,
 *    requeues, a UDP flood penalised).
 */
#include "ns3/choke-queue-disc.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

/* the tests run a bare libchoke beside the queue disc */
#include <choke/core.h>
#include <choke/params.h>
#include <choke/pkt.h>

#include <cmath>
#include <cstdlib>
#include <type_traits>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <unordered_map>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("ChokeQueueDiscTestSuite");

namespace
{

/* ns-3.42 renamed TestCase::TestDuration to TestCase::Duration (the old
 * names went in 3.46): take whichever this ns-3 has. */
template <typename T, typename = void>
struct DurationOf
{
    using type = typename T::TestDuration;
};

template <typename T>
struct DurationOf<T, std::void_t<typename T::Duration>>
{
    using type = typename T::Duration;
};

using Duration = DurationOf<TestCase>::type;

/* ---- packets ---- */

/* A queue disc item that is not IP (ARP, say): keyed by its protocol. */
class NonIpItem : public QueueDiscItem
{
  public:
    NonIpItem(Ptr<Packet> p, uint16_t protocol)
        : QueueDiscItem(p, Address(), protocol)
    {
    }

    void AddHeader() override
    {
    }

    bool Mark() override
    {
        return false;
    }
};

/* An IPv4 item that says ECT but cannot be marked (its Mark() fails, as
 * one whose header is already in the packet does): RED drops it. */
class UnmarkableItem : public Ipv4QueueDiscItem
{
  public:
    UnmarkableItem(Ptr<Packet> p, const Ipv4Header& h)
        : Ipv4QueueDiscItem(p, Address(), 0x0800, h)
    {
    }

    bool Mark() override
    {
        return false;
    }
};

enum FlowKind
{
    F_IPV4_UDP,
    F_IPV4_TCP,
    F_IPV6_UDP,
    F_NONIP,
    F_IPV4_UNMARKABLE
};

struct FlowSpec
{
    FlowKind kind;
    uint8_t ecn; // ECN codepoint of its packets
};

/* Flow i's packet of `size` bytes as the queue disc sees it (item size). */
Ptr<QueueDiscItem>
MakeItem(uint32_t flow, const FlowSpec& f, uint32_t size)
{
    switch (f.kind)
    {
    case F_IPV4_UDP:
    case F_IPV4_UNMARKABLE:
    case F_IPV4_TCP: {
        bool udp = f.kind != F_IPV4_TCP;
        uint32_t l4 = udp ? 8 : 20;
        Ptr<Packet> p = Create<Packet>(size - 20 - l4);
        if (udp)
        {
            UdpHeader u;
            u.SetSourcePort(static_cast<uint16_t>(10000 + flow));
            u.SetDestinationPort(9);
            p->AddHeader(u);
        }
        else
        {
            TcpHeader t;
            t.SetSourcePort(static_cast<uint16_t>(20000 + flow));
            t.SetDestinationPort(80);
            p->AddHeader(t);
        }
        Ipv4Header h;
        h.SetSource(Ipv4Address("10.0.0.1"));
        h.SetDestination(Ipv4Address("10.0.1.1"));
        h.SetProtocol(udp ? 17 : 6);
        h.SetPayloadSize(p->GetSize());
        h.SetTtl(64);
        h.SetEcn(static_cast<Ipv4Header::EcnType>(f.ecn));
        if (f.kind == F_IPV4_UNMARKABLE)
        {
            return Create<UnmarkableItem>(p, h);
        }
        return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
    }
    case F_IPV6_UDP: {
        Ptr<Packet> p = Create<Packet>(size - 40 - 8);
        UdpHeader u;
        u.SetSourcePort(static_cast<uint16_t>(30000 + flow));
        u.SetDestinationPort(9);
        p->AddHeader(u);
        Ipv6Header h;
        h.SetSource(Ipv6Address("2001:db8::1"));
        h.SetDestination(Ipv6Address("2001:db8:1::1"));
        h.SetNextHeader(17);
        h.SetPayloadLength(p->GetSize());
        h.SetHopLimit(64);
        h.SetEcn(static_cast<Ipv6Header::EcnType>(f.ecn));
        return Create<Ipv6QueueDiscItem>(p, Address(), 0x86dd, h);
    }
    case F_NONIP:
    default:
        return Create<NonIpItem>(Create<Packet>(size), 0x0806);
    }
}

/* ---- a recorded sequence ---- */

struct Op
{
    double t;      // seconds
    bool enqueue;  // else dequeue
    uint32_t flow; // enqueue: flow index
    uint32_t size; // enqueue: item size, bytes
};

/* A small deterministic generator for the sequences (not ns-3's streams,
 * which belong to the queue disc under test and its reference). */
struct Lcg
{
    uint64_t s;

    uint32_t Next()
    {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint32_t>(s >> 33);
    }

    double Unit()
    {
        return Next() / 2147483648.0;
    }
};

/* 17 flows: a heavy UDP flow (ECT(0)), TCP-like flows with and without
 * ECN, IPv6 flows, a non-IP one and an ECT one whose items cannot be
 * marked. Phases of overload (arrivals 1.6 times
 * the departures), of draining, and idle gaps long enough for the average
 * to decay. */
std::vector<FlowSpec>
Flows()
{
    std::vector<FlowSpec> f;
    f.push_back({F_IPV4_UDP, 2});
    for (int i = 0; i < 9; i++)
    {
        f.push_back({F_IPV4_TCP, static_cast<uint8_t>(i % 3 == 0 ? 1 : i % 3 == 1 ? 2 : 0)});
    }
    f.push_back({F_IPV6_UDP, 2});
    f.push_back({F_IPV6_UDP, 0});
    f.push_back({F_IPV6_UDP, 3});
    f.push_back({F_IPV4_UDP, 0});
    f.push_back({F_IPV4_UDP, 1});
    f.push_back({F_NONIP, 0});
    f.push_back({F_IPV4_UNMARKABLE, 2});
    return f;
}

std::vector<Op>
Sequence(uint64_t seed, uint32_t n)
{
    std::vector<Op> ops;
    Lcg g{seed};
    double t = 0;
    uint32_t nflows = static_cast<uint32_t>(Flows().size());
    for (uint32_t i = 0; i < n; i++)
    {
        uint32_t phase = (i / 1500) % 4; // overload, overload, drain, overload
        if (i % 1500 == 0 && i && g.Next() % 3 == 0)
        {
            t += 0.05 + g.Unit() * 2; // idle gap
        }
        t += g.Unit() * 0.0004;
        double pEnq = phase == 2 ? 0.35 : 0.62;
        Op op;
        op.t = t;
        op.enqueue = g.Unit() < pEnq;
        uint32_t r = g.Next() % 100;
        op.flow = r < 40 ? 0 : 1 + r % (nflows - 1);
        uint32_t sizes[] = {1000, 1000, 1500, 576, 64, 40};
        op.size = sizes[g.Next() % 6];
        if (Flows()[op.flow].kind == F_IPV6_UDP && op.size < 48)
        {
            op.size = 48;
        }
        ops.push_back(op);
    }
    return ops;
}

/* ---- the driver: the queue disc beside a bare libchoke ---- */

uint32_t
RefRandom(void* ctx)
{
    return static_cast<UniformRandomVariable*>(ctx)->GetInteger(0, 0xffffffffu);
}

struct Config
{
    std::string name;
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> attrs;
};

/* libchoke's counters as the queue disc reports them */
ChokeQueueDisc::ChokeStats
Of(const struct choke_stats* s)
{
    return ChokeQueueDisc::ToChokeStats(s);
}

bool
Same(const ChokeQueueDisc::ChokeStats& a, const ChokeQueueDisc::ChokeStats& b)
{
    return a.offered == b.offered && a.sent == b.sent && a.matched == b.matched &&
           a.matchVictims == b.matchVictims && a.draws == b.draws && a.probDrop == b.probDrop &&
           a.probMark == b.probMark && a.forcedDrop == b.forcedDrop &&
           a.forcedMark == b.forcedMark && a.pdrop == b.pdrop && a.protectDrop == b.protectDrop &&
           a.protectMark == b.protectMark;
}

/* every packet libchoke dropped */
uint64_t
Drops(const ChokeQueueDisc::ChokeStats& s)
{
    return s.matched + s.matchVictims + s.probDrop + s.forcedDrop + s.pdrop + s.protectDrop;
}

class Driver
{
  public:
    explicit Driver(const Config& c)
    {
        m_q = CreateObject<ChokeQueueDisc>();
        for (auto& a : c.attrs)
        {
            m_q->SetAttribute(a.first, *a.second);
        }
        m_q->AssignStreams(7);
        m_q->Initialize();
        m_ref = CreateObject<UniformRandomVariable>();
        m_ref->SetStream(7);
        struct choke_params p;
        std::string err;
        m_initError = !m_q->BuildConfig(&p, &err);
        m_cfg = p.cfg;
        m_ring.assign(choke_ring_slots(m_cfg.limit), choke_slot{});
        std::memset(&m_core, 0, sizeof(m_core));
        if (!m_initError)
        {
            m_initError =
                choke_init(&m_core, &m_cfg, m_ring.data(), choke_ring_bytes(m_cfg.limit));
        }
        struct choke_ops ops = {};
        ops.random_u32 = &RefRandom;
        ops.ctx = PeekPointer(m_ref);
        choke_set_ops(&m_core, &ops);
        m_q->TraceConnectWithoutContext("Enqueue", MakeCallback(&Driver::OnEnqueue, this));
        m_q->TraceConnectWithoutContext("Dequeue", MakeCallback(&Driver::OnDequeue, this));
        m_q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&Driver::OnDbe, this));
        m_q->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&Driver::OnDad, this));
        m_q->TraceConnectWithoutContext("Mark", MakeCallback(&Driver::OnMark, this));
        m_q->TraceConnectWithoutContext("Drop", MakeCallback(&Driver::OnDrop, this));
        m_q->TraceConnectWithoutContext("Victim", MakeCallback(&Driver::OnVictim, this));
        m_q->TraceConnectWithoutContext("AverageQueue", MakeCallback(&Driver::OnAverage, this));
        m_q->TraceConnectWithoutContext("MaxP", MakeCallback(&Driver::OnMaxP, this));
        m_avg = m_q->GetAverageQueue();
        m_maxP = m_q->GetMaxP();
    }

    /* Run the sequence in simulated time; returns the first difference or
     * broken invariant ("" if none). */
    std::string Run(const std::vector<Op>& ops)
    {
        m_ops = &ops;
        m_flows = Flows();
        if (m_initError)
        {
            return "the reference core refused the configuration";
        }
        Simulator::Schedule(Seconds(ops[0].t), &Driver::Step, this, 0);
        Simulator::Run();
        Simulator::Destroy();
        if (m_error.empty() && !Same(m_q->GetChokeStats(), Of(choke_get_stats(&m_core))))
        {
            m_error = "libchoke counters differ at the end";
        }
        return m_error;
    }

    Ptr<ChokeQueueDisc> m_q;
    struct choke m_core;
    std::map<std::string, uint64_t> m_traceDbe, m_traceDad, m_traceMark;
    uint64_t m_traceEnq = 0, m_traceDeq = 0, m_traceDrop = 0, m_traceVictim = 0;
    uint64_t m_avgChanges = 0, m_maxPChanges = 0, m_unmarkable = 0;
    /* marks libchoke counted on packets it then tail-dropped and whose item
     * refused the mark: ns-3 sees only the drop */
    std::map<std::string, uint64_t> m_lostMarks;
    uint64_t m_ops_done = 0;

  private:
    std::string Id(Ptr<const QueueDiscItem> item)
    {
        auto it = m_ids.find(item->GetPacket()->GetUid());
        return it == m_ids.end() ? "?" : std::to_string(it->second);
    }

    void OnEnqueue(Ptr<const QueueDiscItem> item)
    {
        m_traceEnq++;
        m_events << "enq " << Id(item) << ";";
    }

    void OnDequeue(Ptr<const QueueDiscItem>)
    {
        m_traceDeq++;
    }

    void OnDrop(Ptr<const QueueDiscItem>)
    {
        m_traceDrop++;
    }

    void OnVictim(Ptr<const QueueDiscItem> item)
    {
        m_traceVictim++;
        m_events << "vic " << Id(item) << ";";
    }

    void OnAverage(double, double v)
    {
        m_avgChanges++;
        m_avg = v;
    }

    void OnMaxP(double, double v)
    {
        m_maxPChanges++;
        m_maxP = v;
    }

    void OnDbe(Ptr<const QueueDiscItem> item, const char* reason)
    {
        m_traceDbe[reason]++;
        m_events << "dbe " << Id(item) << " " << reason << ";";
    }

    void OnDad(Ptr<const QueueDiscItem> item, const char* reason)
    {
        m_traceDad[reason]++;
        m_events << "dad " << Id(item) << " " << reason << ";";
    }

    void OnMark(Ptr<const QueueDiscItem> item, const char* reason)
    {
        m_traceMark[reason]++;
        m_events << "mark " << Id(item) << " " << reason << ";";
    }

    /* What the queue disc must report for a verdict of the bare core
     * (`unmarkable`: the item refuses a mark, and is dropped instead). */
    std::string Expected(uint32_t id,
                         int r,
                         const struct choke_verdict& v,
                         const char* mark,
                         const char* unmarkable,
                         bool cannotMark)
    {
        std::ostringstream e;
        for (uint32_t i = 0; i < v.nvictims; i++)
        {
            uintptr_t victim = reinterpret_cast<uintptr_t>(v.victim[i]) - 1;
            e << "vic " << victim << ";dad " << victim << " " << ChokeQueueDisc::MATCH_DROP
              << ";";
        }
        if (unmarkable)
        {
            e << "dbe " << id << " " << unmarkable << ";";
            return e.str();
        }
        switch (r)
        {
        case CHOKE_QUEUED_MARKED:
            e << "mark " << id << " " << mark << ";";
            /* fall through */
        case CHOKE_QUEUED:
            e << "enq " << id << ";";
            break;
        case CHOKE_DROP_MATCH:
            e << "dbe " << id << " " << ChokeQueueDisc::MATCH_DROP << ";";
            break;
        case CHOKE_DROP_EARLY:
            e << "dbe " << id << " " << ChokeQueueDisc::UNFORCED_DROP << ";";
            break;
        case CHOKE_DROP_FORCED:
            e << "dbe " << id << " " << ChokeQueueDisc::FORCED_DROP << ";";
            break;
        case CHOKE_DROP_LIMIT:
            if (mark && !cannotMark)
            {
                /* marked, then dropped at the limit: the mark is reported
                 * if the item takes it */
                e << "mark " << id << " " << mark << ";";
            }
            e << "dbe " << id << " " << ChokeQueueDisc::LIMIT_DROP << ";";
            break;
        case CHOKE_DROP_PROTECT:
            e << "dbe " << id << " " << ChokeQueueDisc::PROTECT_DROP << ";";
            break;
        }
        return e.str();
    }

    std::string Conservation()
    {
        const QueueDisc::Stats& st = m_q->GetStats();
        uint64_t inq = m_q->GetNPackets();
        if (st.nTotalReceivedPackets !=
            st.nTotalDroppedPacketsBeforeEnqueue + st.nTotalEnqueuedPackets)
        {
            return "received != dropped before enqueue + enqueued";
        }
        if (st.nTotalReceivedBytes != st.nTotalDroppedBytesBeforeEnqueue + st.nTotalEnqueuedBytes)
        {
            return "received bytes != dropped before enqueue + enqueued";
        }
        if (inq != st.nTotalEnqueuedPackets - st.nTotalDequeuedPackets ||
            m_q->GetNBytes() != st.nTotalEnqueuedBytes - st.nTotalDequeuedBytes)
        {
            return "queued != enqueued - dequeued";
        }
        if (st.nTotalSentPackets !=
            st.nTotalDequeuedPackets - st.nTotalDroppedPacketsAfterDequeue)
        {
            return "sent != dequeued - dropped after dequeue";
        }
        if (st.nTotalReceivedPackets != st.nTotalSentPackets + st.nTotalDroppedPackets + inq)
        {
            return "received != sent + dropped + queued";
        }
        ChokeQueueDisc::ChokeStats c = m_q->GetChokeStats();
        if (c.offered != st.nTotalReceivedPackets || c.sent != st.nTotalSentPackets ||
            Drops(c) != st.nTotalDroppedPackets || choke_qlen(&m_core) != inq)
        {
            return "libchoke's offered / sent / drops / qlen differ from ns-3's";
        }
        if (m_avg != m_q->GetAverageQueue() || m_maxP != m_q->GetMaxP())
        {
            return "the AverageQueue or MaxP trace is not the queue disc's value";
        }
        if (m_q->GetAverageQueue() != static_cast<double>(choke_qavg_scaled(&m_core)) /
                                          static_cast<double>(choke_wscale(&m_core)))
        {
            return "the average is not libchoke's";
        }
        std::string why;
        if ((m_ops_done % 64) == 0 && !m_q->CheckInvariants(&why))
        {
            return why;
        }
        return "";
    }

    void Step(uint32_t i)
    {
        const Op& op = (*m_ops)[i];
        uint64_t now = static_cast<uint64_t>(Simulator::Now().GetNanoSeconds());
        m_events.str("");
        std::string expected;
        if (op.enqueue)
        {
            Ptr<QueueDiscItem> item = MakeItem(op.flow, m_flows[op.flow], op.size);
            m_ids[item->GetPacket()->GetUid()] = i;
            unsigned flags = m_flows[op.flow].ecn ? CHOKE_PKT_ECN_CAPABLE : 0;
            const struct choke_stats* st = choke_get_stats(&m_core);
            uint64_t fm = st->forced_mark, pm = st->prob_mark, ptm = st->protect_mark;
            struct choke_verdict v;
            void* handle = reinterpret_cast<void*>(static_cast<uintptr_t>(i) + 1);
            /* the queue disc's flow value (protect places flows by it; for
             * the rest only equality counts) */
            int r = choke_enqueue(&m_core,
                                  handle,
                                  op.size,
                                  m_q->GetFlowValue(item),
                                  flags,
                                  now,
                                  &v);
            const char* mark = st->forced_mark != fm   ? ChokeQueueDisc::FORCED_MARK
                               : st->prob_mark != pm   ? ChokeQueueDisc::UNFORCED_MARK
                               : st->protect_mark != ptm ? ChokeQueueDisc::PROTECT_MARK
                                                         : nullptr;
            const char* unmarkable = nullptr;
            if (r == CHOKE_QUEUED_MARKED && m_flows[op.flow].kind == F_IPV4_UNMARKABLE)
            {
                /* the queue disc cannot mark it: RED's drop instead */
                enum choke_outcome d = mark == ChokeQueueDisc::FORCED_MARK ? CHOKE_DROP_FORCED
                                       : mark == ChokeQueueDisc::PROTECT_MARK
                                           ? CHOKE_DROP_PROTECT
                                           : CHOKE_DROP_EARLY;
                if (choke_enqueue_unmarkable(&m_core, handle, d))
                {
                    m_error = "op " + std::to_string(i) + ": the bare core kept the mark";
                }
                unmarkable = d == CHOKE_DROP_FORCED    ? ChokeQueueDisc::FORCED_DROP
                             : d == CHOKE_DROP_PROTECT ? ChokeQueueDisc::PROTECT_DROP
                                                       : ChokeQueueDisc::UNFORCED_DROP;
                m_unmarkable++;
            }
            if (r == CHOKE_DROP_LIMIT && mark && m_flows[op.flow].kind == F_IPV4_UNMARKABLE)
            {
                m_lostMarks[mark]++;
            }
            expected = Expected(i,
                                r,
                                v,
                                mark,
                                unmarkable,
                                m_flows[op.flow].kind == F_IPV4_UNMARKABLE);
            m_q->Enqueue(item);
            if (r == CHOKE_QUEUED_MARKED && !unmarkable)
            {
                bool ce = false;
                if (auto ip4 = DynamicCast<Ipv4QueueDiscItem>(item))
                {
                    ce = ip4->GetHeader().GetEcn() == Ipv4Header::ECN_CE;
                }
                else if (auto ip6 = DynamicCast<Ipv6QueueDiscItem>(item))
                {
                    ce = ip6->GetHeader().GetEcn() == Ipv6Header::ECN_CE;
                }
                if (!ce && m_error.empty())
                {
                    m_error = "op " + std::to_string(i) + ": a marked packet does not carry CE";
                }
            }
        }
        else
        {
            void* p = choke_dequeue(&m_core, now, nullptr);
            Ptr<QueueDiscItem> item = m_q->Dequeue();
            expected = p ? std::to_string(reinterpret_cast<uintptr_t>(p) - 1) : "none";
            m_events << (item ? Id(item) : "none");
        }
        m_ops_done++;
        if (m_error.empty() && m_events.str() != expected)
        {
            m_error = "op " + std::to_string(i) + " at " + std::to_string(op.t) +
                      " s: libchoke says \"" + expected + "\", the queue disc \"" +
                      m_events.str() + "\"";
        }
        if (m_error.empty())
        {
            m_error = Conservation();
            if (!m_error.empty())
            {
                m_error = "op " + std::to_string(i) + ": " + m_error;
            }
        }
        if (m_error.empty() && i + 1 < m_ops->size())
        {
            Simulator::Schedule(Seconds((*m_ops)[i + 1].t) - Simulator::Now(),
                                &Driver::Step,
                                this,
                                i + 1);
        }
    }

    Ptr<UniformRandomVariable> m_ref;
    struct choke_config m_cfg;
    std::vector<struct choke_slot> m_ring;
    int m_initError;
    const std::vector<Op>* m_ops = nullptr;
    std::vector<FlowSpec> m_flows;
    std::unordered_map<uint64_t, uint32_t> m_ids;
    std::ostringstream m_events;
    std::string m_error;
    double m_avg = 0, m_maxP = 0;
};

template <typename T>
Ptr<AttributeValue>
V(const T& v)
{
    return Create<T>(v);
}

/* The configurations every recorded sequence runs through: CHOKe and its
 * variants, byte mode, RED's extensions (gentle, wait, ARED), Linux RED and
 * FIFO. Each gives tc's default harddrop (off) explicitly where marks
 * above MaxTh are to be seen. */
std::vector<Config>
Configs()
{
    DataRateValue link(DataRate("10Mbps"));
    return {
        {"choke ecn",
         {{"MaxSize", V(QueueSizeValue(QueueSize("200p")))},
          {"MinTh", V(DoubleValue(20))},
          {"MaxTh", V(DoubleValue(60))},
          {"MeanPktSize", V(UintegerValue(1000))},
          {"UseEcn", V(BooleanValue(true))},
          {"UseHardDrop", V(BooleanValue(false))},
          {"LinkBandwidth", V(link)}}},
        {"choke draws 4, QW 1/256",
         {{"MaxSize", V(QueueSizeValue(QueueSize("100p")))},
          {"MinTh", V(DoubleValue(10))},
          {"MaxTh", V(DoubleValue(40))},
          {"QW", V(DoubleValue(1.0 / 256))},
          {"Draws", V(UintegerValue(4))},
          {"LinkBandwidth", V(link)}}},
        {"choke adaptive draws, bytes",
         {{"MaxSize", V(QueueSizeValue(QueueSize("100000B")))},
          {"MinTh", V(DoubleValue(20000))},
          {"MaxTh", V(DoubleValue(60000))},
          {"AdaptiveDraws", V(BooleanValue(true))},
          {"UseEcn", V(BooleanValue(true))},
          {"LinkBandwidth", V(link)}}},
        {"choke geometric 8, harddrop, kernel clock",
         {{"MaxSize", V(QueueSizeValue(QueueSize("120p")))},
          {"MinTh", V(DoubleValue(15))},
          {"MaxTh", V(DoubleValue(45))},
          {"Geometric", V(UintegerValue(8))},
          {"UseEcn", V(BooleanValue(true))},
          {"UseHardDrop", V(BooleanValue(true))},
          {"KernelIdleClock", V(BooleanValue(true))},
          {"LInterm", V(DoubleValue(10))},
          {"LinkBandwidth", V(DataRateValue(DataRate("2Mbps")))}}},
        {"choke protect 16, draws 2",
         {{"MaxSize", V(QueueSizeValue(QueueSize("100p")))},
          {"MinTh", V(DoubleValue(10))},
          {"MaxTh", V(DoubleValue(40))},
          {"Protect", V(UintegerValue(16))},
          {"Draws", V(UintegerValue(2))},
          {"LinkBandwidth", V(link)}}},
        {"choke gentle, wait, ared, ecn",
         {{"MaxSize", V(QueueSizeValue(QueueSize("150p")))},
          {"MinTh", V(DoubleValue(10))},
          {"MaxTh", V(DoubleValue(35))},
          {"Gentle", V(BooleanValue(true))},
          {"Wait", V(BooleanValue(true))},
          {"AdaptMaxP", V(BooleanValue(true))},
          {"UseEcn", V(BooleanValue(true))},
          {"UseHardDrop", V(BooleanValue(false))},
          {"LinkBandwidth", V(link)}}},
        {"red ecn",
         {{"Discipline", V(EnumValue(ChokeQueueDisc::RED))},
          {"MaxSize", V(QueueSizeValue(QueueSize("150p")))},
          {"MinTh", V(DoubleValue(20))},
          {"MaxTh", V(DoubleValue(60))},
          {"UseEcn", V(BooleanValue(true))},
          {"UseHardDrop", V(BooleanValue(false))},
          {"LinkBandwidth", V(link)}}},
        {"red ARED (automatic thresholds), gentle",
         {{"Discipline", V(EnumValue(ChokeQueueDisc::RED))},
          {"MaxSize", V(QueueSizeValue(QueueSize("150p")))},
          {"ARED", V(BooleanValue(true))},
          {"Gentle", V(BooleanValue(true))},
          {"LInterm", V(DoubleValue(10))},
          {"TargetDelay", V(TimeValue(MilliSeconds(20)))},
          {"LinkBandwidth", V(link)}}},
        {"fifo",
         {{"Discipline", V(EnumValue(ChokeQueueDisc::FIFO))},
          {"MaxSize", V(QueueSizeValue(QueueSize("50p")))}}},
    };
}

/* ---- test cases ---- */

class ChokeDecisionsTestCase : public TestCase
{
  public:
    ChokeDecisionsTestCase()
        : TestCase("decisions identical to libchoke's for a recorded sequence")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<Op> ops = Sequence(1, 24000);
        for (const Config& c : Configs())
        {
            Driver d(c);
            std::string err = d.Run(ops);
            NS_TEST_ASSERT_MSG_EQ(err, "", c.name << ": " << err);
            NS_TEST_ASSERT_MSG_EQ(d.m_ops_done, ops.size(), c.name << ": not every op ran");
            ChokeQueueDisc::ChokeStats s = d.m_q->GetChokeStats();
            NS_LOG_INFO(c.name << ": offered " << s.offered << ", sent " << s.sent << ", matched "
                               << s.matched << " (victims " << s.matchVictims << "), early "
                               << s.probDrop << ", forced " << s.forcedDrop << ", marked "
                               << s.probMark << " + " << s.forcedMark << ", limit " << s.pdrop
                               << "; unmarkable " << d.m_unmarkable << ", MaxP moved "
                               << d.m_maxPChanges << " times, now " << d.m_q->GetMaxP());
            /* the sequence must exercise what it claims to */
            NS_TEST_ASSERT_MSG_GT(s.pdrop + s.probDrop + s.forcedDrop + s.matched,
                                  100,
                                  c.name << ": too few drops to compare");
            if (c.name.find("choke") != std::string::npos)
            {
                NS_TEST_ASSERT_MSG_GT(s.matched, 100, c.name << ": too few matches");
                NS_TEST_ASSERT_MSG_EQ(d.m_traceVictim, s.matchVictims, c.name << ": Victim trace");
            }
            if (c.name.find("ecn") != std::string::npos && c.name.find("bytes") == std::string::npos)
            {
                NS_TEST_ASSERT_MSG_GT(s.probMark + s.forcedMark, 10, c.name << ": too few marks");
                NS_TEST_ASSERT_MSG_GT(d.m_unmarkable, 0, c.name << ": no unmarkable ECT packet");
            }
            if (c.name.find("ared") != std::string::npos || c.name.find("ARED") != std::string::npos)
            {
                NS_TEST_ASSERT_MSG_GT(d.m_maxPChanges, 2, c.name << ": ARED never moved MaxP");
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ(d.m_maxPChanges, 0, c.name << ": MaxP moved without ARED");
            }
            if (c.name != "fifo")
            {
                NS_TEST_ASSERT_MSG_GT(d.m_avgChanges, 1000, c.name << ": AverageQueue trace");
            }
        }
    }
};

class ChokeDropReasonsTestCase : public TestCase
{
  public:
    ChokeDropReasonsTestCase()
        : TestCase("drop and mark reasons: Stats and traces agree with libchoke's counters")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<Op> ops = Sequence(2, 12000);
        for (const Config& c : Configs())
        {
            Driver d(c);
            std::string err = d.Run(ops);
            NS_TEST_ASSERT_MSG_EQ(err, "", c.name << ": " << err);
            const QueueDisc::Stats& st = d.m_q->GetStats();
            ChokeQueueDisc::ChokeStats s = d.m_q->GetChokeStats();
            uint64_t unforcedMarks = st.GetNMarkedPackets(ChokeQueueDisc::UNFORCED_MARK);
            uint64_t forcedMarks = st.GetNMarkedPackets(ChokeQueueDisc::FORCED_MARK);
            NS_TEST_ASSERT_MSG_EQ(st.nDroppedPacketsBeforeEnqueue.count(
                                      ChokeQueueDisc::MATCH_DROP)
                                      ? st.nDroppedPacketsBeforeEnqueue.at(ChokeQueueDisc::MATCH_DROP)
                                      : 0,
                                  s.matched,
                                  c.name << ": arrivals dropped by matches");
            NS_TEST_ASSERT_MSG_EQ(st.nDroppedPacketsAfterDequeue.count(ChokeQueueDisc::MATCH_DROP)
                                      ? st.nDroppedPacketsAfterDequeue.at(ChokeQueueDisc::MATCH_DROP)
                                      : 0,
                                  s.matchVictims,
                                  c.name << ": victims");
            NS_TEST_ASSERT_MSG_EQ(st.GetNDroppedPackets(ChokeQueueDisc::UNFORCED_DROP),
                                  s.probDrop,
                                  c.name << ": unforced drops");
            NS_TEST_ASSERT_MSG_EQ(st.GetNDroppedPackets(ChokeQueueDisc::FORCED_DROP),
                                  s.forcedDrop,
                                  c.name << ": forced drops");
            NS_TEST_ASSERT_MSG_EQ(st.GetNDroppedPackets(ChokeQueueDisc::LIMIT_DROP),
                                  s.pdrop,
                                  c.name << ": limit drops");
            NS_TEST_ASSERT_MSG_EQ(st.GetNDroppedPackets(ChokeQueueDisc::PROTECT_DROP),
                                  s.protectDrop,
                                  c.name << ": protect drops");
            if (c.name.find("protect") != std::string::npos)
            {
                NS_TEST_ASSERT_MSG_GT(s.protectDrop, 10, c.name << ": too few protect drops");
            }
            NS_TEST_ASSERT_MSG_EQ(unforcedMarks,
                                  s.probMark - d.m_lostMarks[ChokeQueueDisc::UNFORCED_MARK],
                                  c.name << ": unforced marks");
            NS_TEST_ASSERT_MSG_EQ(forcedMarks,
                                  s.forcedMark - d.m_lostMarks[ChokeQueueDisc::FORCED_MARK],
                                  c.name << ": forced marks");
            NS_TEST_ASSERT_MSG_EQ(st.GetNMarkedPackets(ChokeQueueDisc::PROTECT_MARK),
                                  s.protectMark - d.m_lostMarks[ChokeQueueDisc::PROTECT_MARK],
                                  c.name << ": protect marks");
            NS_TEST_ASSERT_MSG_EQ(st.nTotalDroppedPackets, Drops(s), c.name << ": drops");
            NS_TEST_ASSERT_MSG_EQ(st.nTotalDroppedPacketsAfterDequeue,
                                  s.matchVictims,
                                  c.name << ": only victims are dropped after dequeue");
            /* the trace sources saw the same */
            uint64_t dbe = 0, dad = 0, marks = 0;
            for (auto& kv : d.m_traceDbe)
            {
                dbe += kv.second;
                NS_TEST_ASSERT_MSG_EQ(kv.second,
                                      st.nDroppedPacketsBeforeEnqueue.at(kv.first),
                                      c.name << ": DropBeforeEnqueue trace, " << kv.first);
            }
            for (auto& kv : d.m_traceDad)
            {
                dad += kv.second;
            }
            for (auto& kv : d.m_traceMark)
            {
                marks += kv.second;
            }
            NS_TEST_ASSERT_MSG_EQ(dbe, st.nTotalDroppedPacketsBeforeEnqueue, c.name);
            NS_TEST_ASSERT_MSG_EQ(dad, st.nTotalDroppedPacketsAfterDequeue, c.name);
            NS_TEST_ASSERT_MSG_EQ(d.m_traceDrop, st.nTotalDroppedPackets, c.name);
            NS_TEST_ASSERT_MSG_EQ(marks, st.nTotalMarkedPackets, c.name);
            NS_TEST_ASSERT_MSG_EQ(d.m_traceEnq, st.nTotalEnqueuedPackets, c.name);
            NS_TEST_ASSERT_MSG_EQ(d.m_traceDeq, st.nTotalDequeuedPackets, c.name);
            /* the reasons are exactly these */
            for (auto& kv : st.nDroppedPacketsBeforeEnqueue)
            {
                bool known = kv.first == ChokeQueueDisc::MATCH_DROP ||
                             kv.first == ChokeQueueDisc::UNFORCED_DROP ||
                             kv.first == ChokeQueueDisc::FORCED_DROP ||
                             kv.first == ChokeQueueDisc::LIMIT_DROP ||
                             kv.first == ChokeQueueDisc::PROTECT_DROP;
                NS_TEST_ASSERT_MSG_EQ(known, true, c.name << ": reason " << kv.first);
            }
        }
    }
};

class ChokeConservationTestCase : public TestCase
{
  public:
    ChokeConservationTestCase()
        : TestCase("conservation: received = sent + dropped + queued, after every operation")
    {
    }

  private:
    void DoRun() override
    {
        /* Driver::Run checks ns-3's identities and libchoke's after every
         * operation; here a longer, more congested sequence with many
         * victims, and the final state. */
        std::vector<Op> ops = Sequence(3, 20000);
        Config c = Configs()[1]; // draws 4: up to 4 victims per arrival
        Driver d(c);
        std::string err = d.Run(ops);
        NS_TEST_ASSERT_MSG_EQ(err, "", err);
        const QueueDisc::Stats& st = d.m_q->GetStats();
        NS_TEST_ASSERT_MSG_EQ(st.nTotalReceivedPackets,
                              st.nTotalSentPackets + st.nTotalDroppedPackets + d.m_q->GetNPackets(),
                              "packets");
        NS_TEST_ASSERT_MSG_EQ(st.nTotalReceivedBytes,
                              st.nTotalSentBytes + st.nTotalDroppedBytes + d.m_q->GetNBytes(),
                              "bytes");
        NS_TEST_ASSERT_MSG_GT(d.m_q->GetChokeStats().matchVictims,
                              d.m_q->GetChokeStats().matched,
                              "draws 4 should drop more victims than arrivals");
        std::string why;
        NS_TEST_ASSERT_MSG_EQ(d.m_q->CheckInvariants(&why), true, why);
        /* drain: everything left comes out in order and the counts close */
        while (d.m_q->Dequeue())
        {
        }
        const QueueDisc::Stats& st2 = d.m_q->GetStats();
        NS_TEST_ASSERT_MSG_EQ(d.m_q->GetNPackets(), 0, "drained");
        NS_TEST_ASSERT_MSG_EQ(st2.nTotalReceivedPackets,
                              st2.nTotalSentPackets + st2.nTotalDroppedPackets,
                              "drained: received = sent + dropped");
        NS_TEST_ASSERT_MSG_EQ(d.m_q->CheckInvariants(&why), true, why);
    }
};

/* A queue disc built directly, for the constructed tests. */
Ptr<ChokeQueueDisc>
MakeQueue(const std::vector<std::pair<std::string, Ptr<AttributeValue>>>& attrs)
{
    Ptr<ChokeQueueDisc> q = CreateObject<ChokeQueueDisc>();
    for (auto& a : attrs)
    {
        q->SetAttribute(a.first, *a.second);
    }
    q->AssignStreams(3);
    q->Initialize();
    return q;
}

/* ECN on, W = 1/2, probability 1/2 between MinTh 10 and MaxTh 30 of 100
 * packets: marks and drops come quickly */
Ptr<ChokeQueueDisc>
MakeEcnQueue(bool hardDrop)
{
    return MakeQueue({{"MaxSize", V(QueueSizeValue(QueueSize("100p")))},
                      {"MinTh", V(DoubleValue(10))},
                      {"MaxTh", V(DoubleValue(30))},
                      {"QW", V(DoubleValue(0.5))},
                      {"LInterm", V(DoubleValue(2))},
                      {"UseEcn", V(BooleanValue(true))},
                      {"UseHardDrop", V(BooleanValue(hardDrop))},
                      {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}});
}

/* A reason counter fed by the trace sources. */
struct Reasons
{
    std::map<std::string, uint32_t> dbe, dad, mark;
    std::string last;

    void Dbe(Ptr<const QueueDiscItem>, const char* r)
    {
        dbe[r]++;
        last = r;
    }

    void Dad(Ptr<const QueueDiscItem>, const char* r)
    {
        dad[r]++;
    }

    void Mark(Ptr<const QueueDiscItem>, const char* r)
    {
        mark[r]++;
        last = r;
    }

    void Connect(Ptr<QueueDisc> q)
    {
        q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&Reasons::Dbe, this));
        q->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&Reasons::Dad, this));
        q->TraceConnectWithoutContext("Mark", MakeCallback(&Reasons::Mark, this));
    }
};

class ChokeMatchThresholdTestCase : public TestCase
{
  public:
    ChokeMatchThresholdTestCase()
        : TestCase("match drops exactly when the average is above MinTh (never at or below)")
    {
    }

  private:
    void DoRun() override
    {
        /* One flow only, so that every draw matches; W = 1/2 so that the
         * average follows the queue. Arrivals at one instant, no
         * departures: below MinTh everything is admitted, above it every
         * arrival is a match and removes a queued packet. */
        for (double maxTh : {60.0, 36.0})
        {
            Ptr<ChokeQueueDisc> q = MakeQueue({{"MaxSize", V(QueueSizeValue(QueueSize("100p")))},
                                               {"MinTh", V(DoubleValue(30))},
                                               {"MaxTh", V(DoubleValue(maxTh))},
                                               {"QW", V(DoubleValue(0.5))},
                                               {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}});
            Reasons r;
            r.Connect(q);
            FlowSpec f{F_IPV4_UDP, 0};
            uint32_t matches = 0, admitted = 0;
            for (int i = 0; i < 400; i++)
            {
                uint32_t before = r.dbe[ChokeQueueDisc::MATCH_DROP];
                bool ok = q->Enqueue(MakeItem(5, f, 1000));
                double avg = q->GetAverageQueue(); // the average this arrival saw
                bool matched = r.dbe[ChokeQueueDisc::MATCH_DROP] != before;
                NS_TEST_ASSERT_MSG_EQ(matched,
                                      (avg > 30),
                                      "arrival " << i << " with average " << avg << ": matched "
                                                 << matched);
                matches += matched;
                admitted += ok;
            }
            NS_TEST_ASSERT_MSG_GT(matches, 150, "matches above MinTh");
            NS_TEST_ASSERT_MSG_EQ(r.dad[ChokeQueueDisc::MATCH_DROP], matches, "one victim each");
            NS_TEST_ASSERT_MSG_EQ(q->GetChokeStats().forcedDrop + q->GetChokeStats().probDrop,
                                  0,
                                  "with one flow the draw always comes first");
            NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(), admitted - matches, "queue length");
        }
        /* the same arrivals through Linux RED: no matches at all */
        Ptr<ChokeQueueDisc> red = MakeQueue({{"Discipline", V(EnumValue(ChokeQueueDisc::RED))},
                                             {"MaxSize", V(QueueSizeValue(QueueSize("100p")))},
                                             {"MinTh", V(DoubleValue(30))},
                                             {"MaxTh", V(DoubleValue(60))},
                                             {"QW", V(DoubleValue(0.5))},
                                             {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}});
        Reasons r;
        r.Connect(red);
        for (int i = 0; i < 400; i++)
        {
            red->Enqueue(MakeItem(5, FlowSpec{F_IPV4_UDP, 0}, 1000));
        }
        NS_TEST_ASSERT_MSG_EQ(r.dbe.count(ChokeQueueDisc::MATCH_DROP), 0, "RED never matches");
        NS_TEST_ASSERT_MSG_GT(r.dbe[ChokeQueueDisc::FORCED_DROP], 100, "RED drops above MaxTh");
        Simulator::Destroy();
    }
};

class ChokeFlowKeyTestCase : public TestCase
{
  public:
    ChokeFlowKeyTestCase()
        : TestCase("flows: 5-tuples compared exactly (a hash collision is not a match), filters")
    {
    }

  private:
    /* An IPv4 UDP item from 10.0.0.1 to 10.0.1.1 with these ports. */
    static Ptr<QueueDiscItem> Udp(uint16_t sport, uint16_t dport)
    {
        Ptr<Packet> p = Create<Packet>(972);
        UdpHeader u;
        u.SetSourcePort(sport);
        u.SetDestinationPort(dport);
        p->AddHeader(u);
        Ipv4Header h;
        h.SetSource(Ipv4Address("10.0.0.1"));
        h.SetDestination(Ipv4Address("10.0.1.1"));
        h.SetProtocol(17);
        h.SetPayloadSize(p->GetSize());
        h.SetTtl(64);
        return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
    }

    /* Two port pairs whose keys differ and whose flow values collide. */
    static bool FindCollision(uint16_t a[2], uint16_t b[2])
    {
        std::unordered_map<uint32_t, uint32_t> seen;
        uint8_t frame[28] = {0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 1, 1};
        for (uint32_t dport = 1; dport <= 8; dport++)
        {
            for (uint32_t sport = 1; sport < 65536; sport++)
            {
                frame[20] = static_cast<uint8_t>(sport >> 8);
                frame[21] = static_cast<uint8_t>(sport);
                frame[22] = static_cast<uint8_t>(dport >> 8);
                frame[23] = static_cast<uint8_t>(dport);
                struct choke_flow_key k;
                choke_flow_key_from_frame(frame, sizeof(frame), CHOKE_LINK_RAW, &k, nullptr);
                uint32_t h = choke_flow_key_hash(&k, ChokeQueueDisc::FLOW_HASH_SEED);
                auto it = seen.find(h);
                if (it != seen.end())
                {
                    a[0] = static_cast<uint16_t>(it->second >> 16);
                    a[1] = static_cast<uint16_t>(it->second);
                    b[0] = static_cast<uint16_t>(sport);
                    b[1] = static_cast<uint16_t>(dport);
                    return true;
                }
                seen[h] = (sport << 16) | dport;
            }
        }
        return false;
    }

    /* Two packets of flow a queued, W = 1/2, MinTh 1: the third arrival
     * sees an average of 1.5 (Linux: 2 + 1 - (1 >> 1), over 2) and draws
     * one of them. */
    static std::string Third(Ptr<QueueDiscItem> a1,
                             Ptr<QueueDiscItem> a2,
                             Ptr<QueueDiscItem> third,
                             Ptr<PacketFilter> filter = nullptr)
    {
        Ptr<ChokeQueueDisc> q = CreateObject<ChokeQueueDisc>();
        q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("10p")));
        q->SetAttribute("MinTh", DoubleValue(1));
        q->SetAttribute("MaxTh", DoubleValue(5));
        q->SetAttribute("QW", DoubleValue(0.5));
        q->SetAttribute("LinkBandwidth", DataRateValue(DataRate("10Mbps")));
        if (filter)
        {
            q->AddPacketFilter(filter);
        }
        q->Initialize();
        Reasons r;
        r.Connect(q);
        q->Enqueue(a1);
        q->Enqueue(a2);
        bool ok = q->Enqueue(third);
        if (q->GetAverageQueue() != 1.5)
        {
            return "average " + std::to_string(q->GetAverageQueue());
        }
        return ok ? "admitted" : r.last;
    }

    void DoRun() override
    {
        uint16_t a[2], b[2];
        NS_TEST_ASSERT_MSG_EQ(FindCollision(a, b), true, "no colliding flow values found");
        NS_TEST_ASSERT_MSG_EQ(Third(Udp(a[0], a[1]), Udp(a[0], a[1]), Udp(a[0], a[1])),
                              ChokeQueueDisc::MATCH_DROP,
                              "the same flow matches");
        NS_TEST_ASSERT_MSG_EQ(Third(Udp(a[0], a[1]), Udp(a[0], a[1]), Udp(b[0], b[1])),
                              "admitted",
                              "ports " << a[0] << "/" << a[1] << " and " << b[0] << "/" << b[1]
                                       << " have the same flow value but are different flows");
        NS_TEST_ASSERT_MSG_EQ(Third(Udp(5, 9), Udp(5, 9), Udp(6, 9)), "admitted", "ports differ");
        /* with a packet filter the flow is its class */
        Ptr<SameClass> f = CreateObject<SameClass>();
        NS_TEST_ASSERT_MSG_EQ(Third(Udp(5, 9), Udp(5, 9), Udp(6, 9), f),
                              ChokeQueueDisc::MATCH_DROP,
                              "one class: one flow");
        f->m_class = PacketFilter::PF_NO_MATCH;
        Ptr<ChokeQueueDisc> q = CreateObject<ChokeQueueDisc>();
        q->SetAttribute("LinkBandwidth", DataRateValue(DataRate("10Mbps")));
        q->AddPacketFilter(f);
        q->Initialize();
        NS_TEST_ASSERT_MSG_EQ(q->Enqueue(Udp(5, 9)), false, "unclassified");
        NS_TEST_ASSERT_MSG_EQ(q->GetStats().GetNDroppedPackets(ChokeQueueDisc::UNCLASSIFIED_DROP),
                              1,
                              "Unclassified drop");
        Simulator::Destroy();
    }

  public:
    /* A filter that puts everything in one class (or none). */
    class SameClass : public PacketFilter
    {
      public:
        int32_t m_class = 7;

      private:
        bool CheckProtocol(Ptr<QueueDiscItem>) const override
        {
            return true;
        }

        int32_t DoClassify(Ptr<QueueDiscItem>) const override
        {
            return m_class;
        }
    };
};

class ChokeEcnTestCase : public TestCase
{
  public:
    ChokeEcnTestCase()
        : TestCase("ECN: ECT packets marked (CE set) instead of dropped; UseHardDrop; matches drop")
    {
    }

  private:
    /* Every arrival its own flow (no matches); W = 1/2; probability 1/2. */
    void Fill(bool hardDrop)
    {
        Ptr<ChokeQueueDisc> q = MakeEcnQueue(hardDrop);
        Reasons r;
        r.Connect(q);
        std::vector<Ptr<QueueDiscItem>> ect;
        for (uint32_t i = 0; i < 60; i++)
        {
            /* ECT(0), ECT(1), CE, and every fourth Not-ECT */
            uint8_t ecn = i % 4 == 3 ? 0 : static_cast<uint8_t>(1 + i % 4 % 3);
            Ptr<QueueDiscItem> item = MakeItem(i, FlowSpec{F_IPV4_UDP, ecn}, 1000);
            double avgBefore = q->GetAverageQueue();
            r.last.clear();
            bool ok = q->Enqueue(item);
            double avg = q->GetAverageQueue();
            bool ce = DynamicCast<Ipv4QueueDiscItem>(item)->GetHeader().GetEcn() ==
                      Ipv4Header::ECN_CE;
            if (ecn == 0)
            {
                bool marked = r.last == ChokeQueueDisc::FORCED_MARK ||
                              r.last == ChokeQueueDisc::UNFORCED_MARK;
                NS_TEST_ASSERT_MSG_EQ(marked, false, "a Not-ECT packet is never marked");
                if (avg > 30)
                {
                    NS_TEST_ASSERT_MSG_EQ(r.last, ChokeQueueDisc::FORCED_DROP, "Not-ECT above MaxTh");
                }
            }
            else
            {
                if (avg > 30)
                {
                    NS_TEST_ASSERT_MSG_EQ(r.last,
                                          hardDrop ? ChokeQueueDisc::FORCED_DROP
                                                   : ChokeQueueDisc::FORCED_MARK,
                                          "ECT above MaxTh, average " << avg);
                }
                if (r.last == ChokeQueueDisc::FORCED_MARK || r.last == ChokeQueueDisc::UNFORCED_MARK)
                {
                    NS_TEST_ASSERT_MSG_EQ(ok, true, "a marked packet is admitted");
                    NS_TEST_ASSERT_MSG_EQ(ce, true, "a marked packet carries CE");
                }
                NS_TEST_ASSERT_MSG_EQ((r.last == ChokeQueueDisc::UNFORCED_DROP),
                                      false,
                                      "an ECT packet is never dropped early with UseEcn");
            }
            if (avg <= 10)
            {
                NS_TEST_ASSERT_MSG_EQ(r.last, "", "nothing happens at or below MinTh");
                NS_TEST_ASSERT_MSG_EQ(ce, (ecn == 3), "CE only if it came with CE");
            }
            (void)avgBefore;
        }
        NS_TEST_ASSERT_MSG_GT(r.mark[ChokeQueueDisc::UNFORCED_MARK], 0, "marks between the thresholds");
        if (hardDrop)
        {
            NS_TEST_ASSERT_MSG_EQ(r.mark.count(ChokeQueueDisc::FORCED_MARK), 0, "UseHardDrop");
        }
        else
        {
            NS_TEST_ASSERT_MSG_GT(r.mark[ChokeQueueDisc::FORCED_MARK], 0, "forced marks");
        }
        const QueueDisc::Stats& st = q->GetStats();
        NS_TEST_ASSERT_MSG_EQ(st.nTotalMarkedPackets,
                              q->GetChokeStats().probMark + q->GetChokeStats().forcedMark,
                              "marks counted");
        /* what leaves carries the marks it was given */
        uint32_t ceOut = 0;
        while (Ptr<QueueDiscItem> item = q->Dequeue())
        {
            ceOut += DynamicCast<Ipv4QueueDiscItem>(item)->GetHeader().GetEcn() ==
                     Ipv4Header::ECN_CE;
        }
        NS_TEST_ASSERT_MSG_GT(ceOut, st.nTotalMarkedPackets / 2, "CE packets leave the queue");
    }

    void DoRun() override
    {
        Fill(false);
        Fill(true);
        /* a match is a drop, ECN or not */
        Ptr<ChokeQueueDisc> q = MakeQueue({{"MaxSize", V(QueueSizeValue(QueueSize("100p")))},
                                           {"MinTh", V(DoubleValue(10))},
                                           {"MaxTh", V(DoubleValue(30))},
                                           {"QW", V(DoubleValue(0.5))},
                                           {"UseEcn", V(BooleanValue(true))},
                                           {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}});
        Reasons r;
        r.Connect(q);
        for (int i = 0; i < 100; i++)
        {
            q->Enqueue(MakeItem(1, FlowSpec{F_IPV4_UDP, 2}, 1000));
        }
        NS_TEST_ASSERT_MSG_GT(r.dbe[ChokeQueueDisc::MATCH_DROP], 30, "one ECT flow: matches");
        NS_TEST_ASSERT_MSG_EQ(r.mark.size(), 0, "matches never mark");
        Simulator::Destroy();
    }
};

class ChokeLimitTestCase : public TestCase
{
  public:
    ChokeLimitTestCase()
        : TestCase("limit: MaxSize in packets and in bytes (tc's pdrop, Dropped by internal queue)")
    {
    }

  private:
    void DoRun() override
    {
        /* W = 2^-20: the average stays near 0, only the limit acts */
        Ptr<ChokeQueueDisc> q = MakeQueue({{"MaxSize", V(QueueSizeValue(QueueSize("10p")))},
                                           {"MinTh", V(DoubleValue(3))},
                                           {"MaxTh", V(DoubleValue(9))},
                                           {"QW", V(DoubleValue(1.0 / (1 << 20)))},
                                           {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}});
        Reasons r;
        r.Connect(q);
        for (uint32_t i = 0; i < 15; i++)
        {
            bool ok = q->Enqueue(MakeItem(i, FlowSpec{F_IPV4_UDP, 0}, 1000));
            NS_TEST_ASSERT_MSG_EQ(ok, (i < 10), "packet " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(), 10, "queue full at MaxSize");
        NS_TEST_ASSERT_MSG_EQ(r.dbe[ChokeQueueDisc::LIMIT_DROP], 5, "limit drop");
        NS_TEST_ASSERT_MSG_EQ(q->GetStats().GetNDroppedPackets(ChokeQueueDisc::LIMIT_DROP),
                              5,
                              "Stats");
        NS_TEST_ASSERT_MSG_EQ(q->GetChokeStats().pdrop, 5, "libchoke's pdrop");
        NS_TEST_ASSERT_MSG_EQ(q->GetCurrentSize().GetValue(), 10, "current size");
        q->Dequeue();
        NS_TEST_ASSERT_MSG_EQ(q->Enqueue(MakeItem(20, FlowSpec{F_IPV4_UDP, 0}, 1000)),
                              true,
                              "room again after a departure");

        /* byte mode: 5000 bytes */
        Ptr<ChokeQueueDisc> b = MakeQueue({{"MaxSize", V(QueueSizeValue(QueueSize("5000B")))},
                                           {"MinTh", V(DoubleValue(1500))},
                                           {"MaxTh", V(DoubleValue(4500))},
                                           {"QW", V(DoubleValue(1.0 / (1 << 16)))},
                                           {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}});
        NS_TEST_ASSERT_MSG_EQ(b->GetConfigString().rfind("limit 5000b ", 0), 0, "byte mode");
        for (uint32_t i = 0; i < 6; i++)
        {
            bool ok = b->Enqueue(MakeItem(i, FlowSpec{F_IPV4_UDP, 0}, 1000));
            NS_TEST_ASSERT_MSG_EQ(ok, (i < 5), "1000-byte packet " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(b->GetNBytes(), 5000, "5000 bytes queued");
        NS_TEST_ASSERT_MSG_EQ(b->Enqueue(MakeItem(9, FlowSpec{F_IPV4_UDP, 0}, 40)),
                              false,
                              "not even 40 more bytes");
        b->Dequeue();
        NS_TEST_ASSERT_MSG_EQ(b->Enqueue(MakeItem(10, FlowSpec{F_IPV4_UDP, 0}, 576)),
                              true,
                              "576 bytes fit");
        NS_TEST_ASSERT_MSG_EQ(b->Enqueue(MakeItem(11, FlowSpec{F_IPV4_UDP, 0}, 576)),
                              false,
                              "a second 576 does not (4576 + 576 > 5000)");
        NS_TEST_ASSERT_MSG_EQ(b->GetStats().GetNDroppedPackets(ChokeQueueDisc::LIMIT_DROP),
                              3,
                              "byte-mode limit drops");
        std::string why;
        NS_TEST_ASSERT_MSG_EQ(b->CheckInvariants(&why), true, why);
        Simulator::Destroy();
    }
};

/* tc's words parsed by libchoke, as the test's reference */
struct choke_params
Parse(std::vector<std::string> words, int kind = CHOKE_KIND_CHOKE)
{
    std::vector<char*> argv;
    for (auto& w : words)
    {
        argv.push_back(const_cast<char*>(w.c_str()));
    }
    struct choke_params p;
    char err[CHOKE_ERRBUF_SIZE];
    int r = choke_params_parse(static_cast<int>(argv.size()),
                               argv.data(),
                               kind,
                               nullptr,
                               &p,
                               err,
                               sizeof(err));
    NS_ABORT_MSG_IF(r, "test words refused: " << err);
    return p;
}

/* p with the weight 2^-wlog, as QW gives it: tc's idle table for that Wlog */
struct choke_params
WithWlog(struct choke_params p, int wlog)
{
    p.cfg.Wlog = static_cast<uint8_t>(wlog);
    p.cfg.Scell_log = static_cast<uint8_t>(
        choke_tc_idle_damping(wlog, p.avpkt, p.bandwidth_bytes_per_sec, p.cfg.stab, &p.xmit_ticks));
    return p;
}

/* tc's view of a configuration */
std::string
Format(const struct choke_config& c)
{
    char buf[512];
    choke_params_format(&c, buf, sizeof(buf));
    return buf;
}

/* The configuration a queue disc with these attributes derives (no device). */
bool
Derive(const std::vector<std::pair<std::string, Ptr<AttributeValue>>>& attrs,
       struct choke_params* p,
       std::string* err)
{
    Ptr<ChokeQueueDisc> q = CreateObject<ChokeQueueDisc>();
    for (auto& a : attrs)
    {
        q->SetAttribute(a.first, *a.second);
    }
    return q->BuildConfig(p, err);
}

class ChokeAttributesTestCase : public TestCase
{
  public:
    ChokeAttributesTestCase()
        : TestCase("attributes: RED's defaults and names, tc's derivation, bad input refused")
    {
    }

  private:
    static std::string Error(const std::vector<std::pair<std::string, Ptr<AttributeValue>>>& attrs)
    {
        struct choke_params p;
        std::string err;
        return Derive(attrs, &p, &err) ? "" : err;
    }

    void DoRun() override
    {
        Ptr<AttributeValue> link = V(DataRateValue(DataRate("1Mbps")));
        /* the paper's queue, in tc's words: identical configuration */
        {
            Ptr<ChokeQueueDisc> q = MakeQueue({{"MaxSize", V(QueueSizeValue(QueueSize("300p")))},
                                               {"MinTh", V(DoubleValue(100))},
                                               {"MaxTh", V(DoubleValue(200))},
                                               {"Burst", V(UintegerValue(300))},
                                               {"MeanPktSize", V(UintegerValue(1000))},
                                               {"UseHardDrop", V(BooleanValue(false))},
                                               {"LinkBandwidth", link}});
            struct choke_params p = Parse({"limit", "300", "min", "100", "max", "200", "burst",
                                           "300", "probability", "0.02", "bandwidth", "1mbit"});
            struct choke_params d;
            std::string err;
            NS_TEST_ASSERT_MSG_EQ(q->BuildConfig(&d, &err), true, err);
            NS_TEST_ASSERT_MSG_EQ(std::memcmp(&p.cfg, &d.cfg, sizeof(p.cfg)),
                                  0,
                                  "same configuration as tc's words");
            NS_TEST_ASSERT_MSG_EQ(q->GetConfigString(),
                                  "limit 300p min 100p max 200p ewma 9 probability 0.02 Scell_log 22",
                                  "tc's view of what runs");
        }
        /* defaults: RedQueueDisc's (25 packets, 5 / 15, 500 bytes, QW 0.002,
         * harddrop), Linux's decisions (no gentle, no wait) */
        {
            Ptr<ChokeQueueDisc> q = MakeQueue({{"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}});
            struct choke_params p = WithWlog(Parse({"limit", "25", "min", "5", "max", "15",
                                                    "avpkt", "500", "harddrop", "bandwidth",
                                                    "10mbit"}),
                                             9);
            NS_TEST_ASSERT_MSG_EQ(q->GetConfigString(), Format(p.cfg), "RED's defaults");
            for (auto& d : std::vector<std::pair<std::string, std::string>>{{"MaxSize", "25p"},
                                                                         {"MinTh", "5"},
                                                                         {"MaxTh", "15"},
                                                                         {"QW", "0.002"},
                                                                         {"LInterm", "50"},
                                                                         {"MeanPktSize", "500"},
                                                                         {"UseHardDrop", "true"},
                                                                         {"UseEcn", "false"},
                                                                         {"LinkDelay", "+20ms"},
                                                                         {"TargetDelay", "+5ms"},
                                                                         {"ARED", "false"}})
            {
                Ptr<RedQueueDisc> red = CreateObject<RedQueueDisc>();
                StringValue a;
                StringValue b;
                red->GetAttribute(d.first, a);
                q->GetAttribute(d.first, b);
                NS_TEST_ASSERT_MSG_EQ(b.Get(), a.Get(), d.first << ": RedQueueDisc's default");
            }
        }
        /* a RedQueueDisc configuration with RED's research attributes,
         * swapped to ChokeQueueDisc: every attribute is taken and works */
        {
            for (std::string type : {"ns3::RedQueueDisc", "ns3::ChokeQueueDisc"})
            {
                ObjectFactory f;
                f.SetTypeId(type);
                f.Set("MinTh", DoubleValue(100));
                f.Set("MaxTh", DoubleValue(200));
                f.Set("MaxSize", QueueSizeValue(QueueSize("300p")));
                f.Set("QW", DoubleValue(0.002));
                f.Set("LInterm", DoubleValue(50));
                f.Set("UseEcn", BooleanValue(true));
                f.Set("UseHardDrop", BooleanValue(true));
                f.Set("MeanPktSize", UintegerValue(1000));
                f.Set("LinkBandwidth", DataRateValue(DataRate("1Mbps")));
                f.Set("LinkDelay", TimeValue(MilliSeconds(10)));
                f.Set("Gentle", BooleanValue(true));
                f.Set("Wait", BooleanValue(true));
                f.Set("AdaptMaxP", BooleanValue(true));
                f.Set("Interval", TimeValue(MilliSeconds(500)));
                f.Set("Top", DoubleValue(0.5));
                f.Set("Bottom", DoubleValue(0.0));
                f.Set("Alpha", DoubleValue(0.01));
                f.Set("Beta", DoubleValue(0.9));
                f.Set("FengAdaptive", BooleanValue(false));
                f.Set("NLRED", BooleanValue(false));
                Ptr<QueueDisc> q = f.Create<QueueDisc>();
                q->Initialize();
                NS_TEST_ASSERT_MSG_EQ(q->GetMaxSize(), QueueSize("300p"), type);
                for (uint32_t i = 0; i < 50; i++)
                {
                    q->Enqueue(MakeItem(i % 3, FlowSpec{F_IPV4_UDP, 1}, 1000));
                }
                NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(), 50, type << ": below MinTh all are queued");
            }
            Ptr<ChokeQueueDisc> q = MakeQueue({{"MinTh", V(DoubleValue(100))},
                                               {"MaxTh", V(DoubleValue(200))},
                                               {"MaxSize", V(QueueSizeValue(QueueSize("300p")))},
                                               {"QW", V(DoubleValue(0.002))},
                                               {"MeanPktSize", V(UintegerValue(1000))},
                                               {"UseEcn", V(BooleanValue(true))},
                                               {"Gentle", V(BooleanValue(true))},
                                               {"Wait", V(BooleanValue(true))},
                                               {"AdaptMaxP", V(BooleanValue(true))},
                                               {"LinkBandwidth", link}});
            struct choke_params p =
                WithWlog(Parse({"limit", "300", "min", "100", "max", "200", "probability", "0.02",
                                "bandwidth", "1mbit", "ecn", "harddrop", "gentle", "wait", "ared"}),
                         9);
            NS_TEST_ASSERT_MSG_EQ(q->GetConfigString(),
                                  Format(p.cfg),
                                  "QW 0.002 is 2^-9 with tc's table; gentle, wait, ared");
            NS_TEST_ASSERT_MSG_EQ(p.cfg.red_ext,
                                  (CHOKE_RED_GENTLE | CHOKE_RED_WAIT | CHOKE_RED_ARED),
                                  "the words are libchoke's");
        }
        /* ARED: RedQueueDisc's automatic thresholds and weight; QW's
         * automatic values */
        {
            /* 10 Mbit/s of 500-byte packets: C = 2500 packets a second;
             * TargetDelay 5 ms: MinTh max(5, 6.25), rounded to 6, MaxTh 18;
             * QW 1 - exp(-1/2500), 2^-11.3, held as 2^-11 */
            std::vector<std::pair<std::string, Ptr<AttributeValue>>> ared = {
                {"ARED", V(BooleanValue(true))},
                {"MaxSize", V(QueueSizeValue(QueueSize("100p")))},
                {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}};
            Ptr<ChokeQueueDisc> q = MakeQueue(ared);
            struct choke_params p = WithWlog(Parse({"limit", "100", "min", "6", "max", "18",
                                                    "avpkt", "500", "harddrop", "ared",
                                                    "bandwidth", "10mbit"}),
                                             11);
            NS_TEST_ASSERT_MSG_EQ(q->GetConfigString(), Format(p.cfg), "ARED's settings");
            bool rounded = false;
            for (auto& w : q->GetWarnings())
            {
                rounded |= w.find("6.25") != std::string::npos;
            }
            NS_TEST_ASSERT_MSG_EQ(rounded, true, "the rounding of 6.25 is a warning");
            /* QW -1 (LinkDelay 20 ms: RTT max(0.1, 3 (0.02 + 1/C)) = 0.1,
             * QW 1 - exp(-1/2500) -> 2^-18) and -2 (1 - exp(-10/C) -> 2^-8) */
            struct choke_params d;
            std::string err;
            NS_TEST_ASSERT_MSG_EQ(Derive({{"QW", V(DoubleValue(0))},
                                          {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}},
                                         &d,
                                         &err),
                                  true,
                                  err);
            NS_TEST_ASSERT_MSG_EQ(static_cast<int>(d.cfg.Wlog),
                                  static_cast<int>(std::lround(-std::log2(1 - std::exp(-1.0 / 2500)))),
                                  "QW 0 is 1 - exp(-1/C)");
            NS_TEST_ASSERT_MSG_EQ(Derive({{"QW", V(DoubleValue(-1))},
                                          {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}},
                                         &d,
                                         &err),
                                  true,
                                  err);
            NS_TEST_ASSERT_MSG_EQ(static_cast<int>(d.cfg.Wlog),
                                  static_cast<int>(std::lround(
                                      -std::log2(1 - std::exp(-1.0 / (10 * 0.1 * 2500))))),
                                  "QW -1 from LinkDelay");
            NS_TEST_ASSERT_MSG_EQ(Derive({{"QW", V(DoubleValue(-2))},
                                          {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}},
                                         &d,
                                         &err),
                                  true,
                                  err);
            NS_TEST_ASSERT_MSG_EQ(static_cast<int>(d.cfg.Wlog), 8, "QW -2 is 1 - exp(-10/C)");
            /* Burst sets the weight as tc does; QW is then not used */
            NS_TEST_ASSERT_MSG_EQ(Derive({{"QW", V(DoubleValue(0.5))},
                                          {"Burst", V(UintegerValue(150))},
                                          {"MaxSize", V(QueueSizeValue(QueueSize("300p")))},
                                          {"MinTh", V(DoubleValue(100))},
                                          {"MaxTh", V(DoubleValue(200))},
                                          {"LinkBandwidth", link}},
                                         &d,
                                         &err),
                                  true,
                                  err);
            struct choke_params b = Parse({"limit", "300", "min", "100", "max", "200", "burst",
                                           "150", "avpkt", "500", "harddrop", "bandwidth", "1mbit"});
            NS_TEST_ASSERT_MSG_EQ(static_cast<int>(d.cfg.Wlog),
                                  static_cast<int>(b.cfg.Wlog),
                                  "Burst's weight");
        }
        /* the variants are words */
        {
            struct choke_params p;
            std::string err;
            NS_TEST_ASSERT_MSG_EQ(Derive({{"Draws", V(UintegerValue(4))}, {"LinkBandwidth", link}}, &p, &err),
                                  true,
                                  err);
            NS_TEST_ASSERT_MSG_EQ(p.cfg.variant, CHOKE_VAR_DRAWS, "Draws");
            NS_TEST_ASSERT_MSG_EQ(p.cfg.draws, 4, "Draws 4");
            NS_TEST_ASSERT_MSG_EQ(Derive({{"AdaptiveDraws", V(BooleanValue(true))}, {"LinkBandwidth", link}},
                                         &p,
                                         &err),
                                  true,
                                  err);
            NS_TEST_ASSERT_MSG_EQ(p.cfg.variant, CHOKE_VAR_ADAPTIVE, "AdaptiveDraws");
            NS_TEST_ASSERT_MSG_EQ(Derive({{"Geometric", V(UintegerValue(5))}, {"LinkBandwidth", link}}, &p, &err),
                                  true,
                                  err);
            NS_TEST_ASSERT_MSG_EQ(p.cfg.variant, CHOKE_VAR_GEOMETRIC, "Geometric");
            NS_TEST_ASSERT_MSG_EQ(p.cfg.draws, 5, "Geometric 5");
            NS_TEST_ASSERT_MSG_EQ(Derive({{"Protect", V(UintegerValue(32))},
                                          {"AdaptiveDraws", V(BooleanValue(true))},
                                          {"LinkBandwidth", link}},
                                         &p,
                                         &err),
                                  true,
                                  err);
            NS_TEST_ASSERT_MSG_EQ(p.cfg.protect, 32, "Protect 32");
            NS_TEST_ASSERT_MSG_EQ(p.cfg.variant, CHOKE_VAR_ADAPTIVE, "Protect with AdaptiveDraws");
            NS_TEST_ASSERT_MSG_EQ(Derive({{"KernelIdleClock", V(BooleanValue(true))}, {"LinkBandwidth", link}},
                                         &p,
                                         &err),
                                  true,
                                  err);
            NS_TEST_ASSERT_MSG_EQ(p.cfg.idle_unit, CHOKE_IDLE_KERNEL_US, "clock");
        }
        /* bad values: refused when they are set (Config, ObjectFactory,
         * CommandLine), with the rule on standard error */
        struct BadValue
        {
            std::string name;
            Ptr<AttributeValue> value;
        };

        std::vector<BadValue> badValues = {
            {"MinTh", V(DoubleValue(5.5))},
            {"MaxTh", V(DoubleValue(-1))},
            {"Draws", V(UintegerValue(17))},
            {"Draws", V(UintegerValue(0))},
            {"Geometric", V(UintegerValue(20))},
            {"Protect", V(UintegerValue(24))},
            {"Protect", V(UintegerValue(512))},
            {"LInterm", V(DoubleValue(0))},
            {"QW", V(DoubleValue(2))},
            {"QW", V(DoubleValue(-0.5))},
            {"MeanPktSize", V(UintegerValue(0))},
            {"TargetDelay", V(TimeValue(Seconds(0)))},
            {"Interval", V(TimeValue(Seconds(1)))},
            {"Top", V(DoubleValue(0.6))},
            {"Bottom", V(DoubleValue(0.05))},
            {"Alpha", V(DoubleValue(0.02))},
            {"Beta", V(DoubleValue(0.8))},
            {"FengAdaptive", V(BooleanValue(true))},
            {"NLRED", V(BooleanValue(true))},
        };
        for (auto& b : badValues)
        {
            Ptr<ChokeQueueDisc> q = CreateObject<ChokeQueueDisc>();
            NS_TEST_ASSERT_MSG_EQ(q->SetAttributeFailSafe(b.name, *b.value),
                                  false,
                                  b.name << " should be refused when set");
            NS_TEST_ASSERT_MSG_EQ(ns3::Config::SetDefaultFailSafe("ns3::ChokeQueueDisc::" + b.name,
                                                             *b.value),
                                  false,
                                  b.name << " should be refused as a default");
        }
        /* the values libchoke has are taken on an instance too */
        {
            Ptr<ChokeQueueDisc> q = CreateObject<ChokeQueueDisc>();
            NS_TEST_ASSERT_MSG_EQ(q->SetAttributeFailSafe("Top", DoubleValue(0.5)), true, "Top");
            NS_TEST_ASSERT_MSG_EQ(q->SetAttributeFailSafe("Bottom", DoubleValue(0.01)), true, "");
            NS_TEST_ASSERT_MSG_EQ(q->SetAttributeFailSafe("Interval", TimeValue(MilliSeconds(500))),
                                  true,
                                  "Interval");
        }
        /* bad combinations: refused when the queue disc is initialized, with a
         * message naming the problem (CheckAttributes says it beforehand) */
        struct Bad
        {
            std::vector<std::pair<std::string, Ptr<AttributeValue>>> attrs;
            std::string says;
        };

        std::vector<Bad> bad = {
            {{{"MinTh", V(DoubleValue(20))}, {"MaxTh", V(DoubleValue(10))}, {"LinkBandwidth", link}},
             "\"min\" is not smaller than \"max\""},
            {{{"MaxTh", V(DoubleValue(2000))}, {"LinkBandwidth", link}},
             "\"max\" is larger than \"limit\""},
            {{{"Draws", V(UintegerValue(4))}, {"AdaptiveDraws", V(BooleanValue(true))}, {"LinkBandwidth", link}},
             "alternatives"},
            {{{"Discipline", V(EnumValue(ChokeQueueDisc::RED))},
              {"Protect", V(UintegerValue(64))},
              {"LinkBandwidth", link}},
             "\"protect\" applies to choke only"},
            {{{"Discipline", V(EnumValue(ChokeQueueDisc::FIFO))},
              {"MaxSize", V(QueueSizeValue(QueueSize("3000B")))}},
             "Fifo discipline counts packets"},
            {{{"Discipline", V(EnumValue(ChokeQueueDisc::RED))},
              {"Draws", V(UintegerValue(2))},
              {"LinkBandwidth", link}},
             "choke only"},
            {{{"MaxSize", V(QueueSizeValue(QueueSize("200000p")))}, {"LinkBandwidth", link}},
             "the kernel would reject"},
            {{{"QW", V(DoubleValue(1e-12))}, {"LinkBandwidth", link}}, "outside 2^-31"},
        };
        for (auto& b : bad)
        {
            std::string err = Error(b.attrs);
            NS_TEST_ASSERT_MSG_NE(err.find(b.says),
                                  std::string::npos,
                                  "expected an error saying \"" << b.says << "\", got \"" << err
                                                                << "\"");
        }
        /* no LinkBandwidth and no device: RedQueueDisc's 1.5Mbps, with a
         * warning (not an error) */
        {
            Ptr<ChokeQueueDisc> q = MakeQueue({});
            struct choke_params p = WithWlog(Parse({"limit", "25", "min", "5", "max", "15",
                                                    "avpkt", "500", "harddrop", "bandwidth",
                                                    "1500kbit"}),
                                             9);
            NS_TEST_ASSERT_MSG_EQ(q->GetConfigString(), Format(p.cfg), "1.5Mbps");
            NS_TEST_ASSERT_MSG_EQ(q->GetWarnings().empty(), false, "a warning says so");
            NS_TEST_ASSERT_MSG_NE(q->GetWarnings().back().find("1.5Mbps"), std::string::npos,
                                  q->GetWarnings().back());
        }
        Simulator::Destroy();
    }
};

/* Under a classful queue disc (Prio) a child has no device to take the
 * link rate from: it runs with RedQueueDisc's default and says so. */
class ChokeClassfulParentTestCase : public TestCase
{
  public:
    ChokeClassfulParentTestCase()
        : TestCase("under PrioQueueDisc: no device rate, RED's 1.5Mbps, no abort")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<PrioQueueDisc> prio = CreateObject<PrioQueueDisc>();
        std::vector<Ptr<ChokeQueueDisc>> kids;
        for (int i = 0; i < 2; i++)
        {
            Ptr<ChokeQueueDisc> c = CreateObject<ChokeQueueDisc>();
            c->SetAttribute("MaxSize", QueueSizeValue(QueueSize("50p")));
            Ptr<QueueDiscClass> k = CreateObject<QueueDiscClass>();
            k->SetQueueDisc(c);
            prio->AddQueueDiscClass(k);
            kids.push_back(c);
        }
        prio->Initialize();
        for (uint32_t i = 0; i < 40; i++)
        {
            prio->Enqueue(MakeItem(i % 4, FlowSpec{F_IPV4_UDP, 0}, 1000));
        }
        uint32_t out = 0;
        while (prio->Dequeue())
        {
            out++;
        }
        NS_TEST_ASSERT_MSG_EQ(out + prio->GetStats().nTotalDroppedPackets, 40, "all accounted for");
        NS_TEST_ASSERT_MSG_GT(kids[0]->GetStats().nTotalReceivedPackets +
                                  kids[1]->GetStats().nTotalReceivedPackets,
                              0,
                              "the children took the packets");
        NS_TEST_ASSERT_MSG_NE(kids[0]->GetConfigString().find("limit 50p"), std::string::npos,
                              kids[0]->GetConfigString());
        bool said = false;
        for (auto& w : kids[0]->GetWarnings())
        {
            said |= w.find("1.5Mbps") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(said, true, "the fallback is a warning");
        Simulator::Destroy();
    }
};

/* A packet whose Mark() fails is dropped, as RedQueueDisc drops it; the
 * counters of libchoke and of ns-3 say drop, not mark. */
class ChokeUnmarkableTestCase : public TestCase
{
  public:
    ChokeUnmarkableTestCase()
        : TestCase("Mark() failing: the packet is dropped (Unforced or Forced drop), not admitted")
    {
    }

  private:
    void DoRun() override
    {
        for (bool hard : {false, true})
        {
            Ptr<ChokeQueueDisc> q =
                MakeEcnQueue(hard);
            Reasons r;
            r.Connect(q);
            uint32_t admitted = 0;
            for (uint32_t i = 0; i < 80; i++)
            {
                /* every arrival its own flow: no matches */
                admitted += q->Enqueue(MakeItem(i, FlowSpec{F_IPV4_UNMARKABLE, 2}, 1000));
            }
            ChokeQueueDisc::ChokeStats s = q->GetChokeStats();
            const QueueDisc::Stats& st = q->GetStats();
            NS_TEST_ASSERT_MSG_EQ(r.mark.size(), 0, "nothing is reported marked");
            NS_TEST_ASSERT_MSG_EQ(s.probMark + s.forcedMark, 0, "libchoke counted no mark");
            NS_TEST_ASSERT_MSG_GT(s.probDrop, 0, "early drops instead");
            NS_TEST_ASSERT_MSG_GT(s.forcedDrop, 0, "forced drops instead");
            NS_TEST_ASSERT_MSG_EQ(st.GetNDroppedPackets(ChokeQueueDisc::UNFORCED_DROP), s.probDrop, "");
            NS_TEST_ASSERT_MSG_EQ(st.GetNDroppedPackets(ChokeQueueDisc::FORCED_DROP), s.forcedDrop, "");
            NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(), admitted, "queued = admitted");
            std::string why;
            NS_TEST_ASSERT_MSG_EQ(q->CheckInvariants(&why), true, why);
        }
        Simulator::Destroy();
    }
};

/* The traces beyond QueueDisc's: AverageQueue, MaxP (with ARED), Victim
 * (before the victim's Dequeue and DropAfterDequeue), and the decisions
 * logged at NS_LOG's debug level. */
class ChokeTracesTestCase : public TestCase
{
  public:
    ChokeTracesTestCase()
        : TestCase("traces and logging: AverageQueue, MaxP under ARED, Victim, NS_LOG_DEBUG")
    {
    }

  private:
    std::vector<std::string> m_order;
    std::vector<double> m_maxP;
    double m_avg = -1;

    void Avg(double, double v)
    {
        m_avg = v;
    }

    void MaxP(double, double v)
    {
        m_maxP.push_back(v);
    }

    void Ev(std::string what, Ptr<const QueueDiscItem> item)
    {
        m_order.push_back(what + " " + std::to_string(item->GetPacket()->GetUid()));
    }

    void Dad(Ptr<const QueueDiscItem> item, const char*)
    {
        Ev("dad", item);
    }

    /* every 10 ms four arrivals of eight flows and two departures: the
     * queue fills and RED holds it near MaxTh, above ARED's band */
    void Tick(Ptr<ChokeQueueDisc> q, uint32_t k)
    {
        for (uint32_t i = 0; i < 4; i++)
        {
            q->Enqueue(MakeItem((4 * k + i) % 8, FlowSpec{F_IPV4_UDP, 0}, 1000));
        }
        q->Dequeue();
        q->Dequeue();
        if (k < 500)
        {
            Simulator::Schedule(MilliSeconds(10), &ChokeTracesTestCase::Tick, this, q, k + 1);
        }
    }

    void DoRun() override
    {
        Ptr<ChokeQueueDisc> q = MakeQueue({{"MaxSize", V(QueueSizeValue(QueueSize("200p")))},
                                           {"MinTh", V(DoubleValue(10))},
                                           {"MaxTh", V(DoubleValue(30))},
                                           {"QW", V(DoubleValue(0.25))},
                                           {"AdaptMaxP", V(BooleanValue(true))},
                                           {"LinkBandwidth", V(DataRateValue(DataRate("10Mbps")))}});
        q->TraceConnectWithoutContext("AverageQueue", MakeCallback(&ChokeTracesTestCase::Avg, this));
        q->TraceConnectWithoutContext("MaxP", MakeCallback(&ChokeTracesTestCase::MaxP, this));
        q->TraceConnectWithoutContext("Victim",
                                      MakeCallback(&ChokeTracesTestCase::Ev, this).Bind(std::string("victim")));
        q->TraceConnectWithoutContext("Dequeue",
                                      MakeCallback(&ChokeTracesTestCase::Ev, this).Bind(std::string("dequeue")));
        q->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&ChokeTracesTestCase::Dad, this));

        /* eight flows held above the target band for 5 s: ARED raises the
         * probability every 500 ms; the decisions are logged */
        std::ostringstream log;
        std::streambuf* saved = std::clog.rdbuf(log.rdbuf());
        LogComponentEnable("ChokeQueueDisc", LOG_LEVEL_DEBUG);
        Simulator::Schedule(MilliSeconds(1), &ChokeTracesTestCase::Tick, this, q, 0);
        Simulator::Run();
        LogComponentDisable("ChokeQueueDisc", LOG_LEVEL_DEBUG);
        std::clog.rdbuf(saved);

        NS_TEST_ASSERT_MSG_EQ(m_avg, q->GetAverageQueue(), "AverageQueue is the average");
        NS_TEST_ASSERT_MSG_GT(m_maxP.size(), 6, "MaxP moved every period");
        NS_TEST_ASSERT_MSG_GT(q->GetMaxP(), 0.05, "ARED raised it from 0.02");
        for (size_t i = m_maxP.size() - 5; i < m_maxP.size(); i++)
        {
            NS_TEST_ASSERT_MSG_GT(m_maxP[i], m_maxP[i - 1], "held above the band: up");
        }
        /* each victim: Victim, then its Dequeue, then DropAfterDequeue */
        uint32_t victims = 0;
        for (size_t i = 0; i < m_order.size(); i++)
        {
            if (m_order[i].rfind("victim ", 0) == 0)
            {
                std::string uid = m_order[i].substr(7);
                NS_TEST_ASSERT_MSG_EQ((i + 2 < m_order.size()), true, "events follow the victim");
                NS_TEST_ASSERT_MSG_EQ(m_order[i + 1], "dequeue " + uid, "its Dequeue");
                NS_TEST_ASSERT_MSG_EQ(m_order[i + 2], "dad " + uid, "its DropAfterDequeue");
                victims++;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(victims, q->GetChokeStats().matchVictims, "a Victim per victim");
        NS_TEST_ASSERT_MSG_GT(victims, 10, "victims seen");
        NS_LOG_INFO("traces: MaxP " << m_maxP.front() << " .. " << m_maxP.back() << ", "
                                    << victims << " victims");
#ifdef NS3_LOG_ENABLE
        /* NS_LOG_DEBUG: a line per decision with the average */
        std::string text = log.str();
        NS_TEST_ASSERT_MSG_NE(text.find("both dropped (Match drop)"), std::string::npos,
                              "a match is logged");
        NS_TEST_ASSERT_MSG_NE(text.find(" admitted"), std::string::npos, "an admission is logged");
        NS_TEST_ASSERT_MSG_NE(text.find("avg "), std::string::npos, "with the average");
#endif
        Simulator::Destroy();
    }
};

/* A small dumbbell with real devices: a UDP flood at twice the bottleneck
 * and 8 TCP flows through a ChokeQueueDisc whose LinkBandwidth comes from
 * the device. */
class ChokeDumbbellTestCase : public TestCase
{
  public:
    ChokeDumbbellTestCase()
        : TestCase("dumbbell: LinkBandwidth from the device, conservation, a UDP flood penalised")
    {
    }

  private:
    uint64_t m_udpTx = 0, m_tcpTx = 0;

    void OnTx(Ptr<const Packet> p)
    {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        c->RemoveHeader(ppp);
        c->PeekHeader(ip);
        (ip.GetProtocol() == 17 ? m_udpTx : m_tcpTx) += p->GetSize();
    }

    void DoRun() override
    {
        const uint32_t nTcp = 8;
        NodeContainer left, right, routers;
        left.Create(nTcp + 1);
        right.Create(1);
        routers.Create(2);
        InternetStackHelper stack;
        stack.InstallAll();
        PointToPointHelper btl;
        btl.SetDeviceAttribute("DataRate", StringValue("2Mbps"));
        btl.SetChannelAttribute("Delay", StringValue("5ms"));
        btl.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
        NetDeviceContainer bd = btl.Install(routers.Get(0), routers.Get(1));
        TrafficControlHelper tch;
        tch.SetRootQueueDisc("ns3::ChokeQueueDisc",
                             "MaxSize",
                             StringValue("200p"),
                             "MinTh",
                             DoubleValue(40),
                             "MaxTh",
                             DoubleValue(120));
        QueueDiscContainer qd = tch.Install(bd);
        Ipv4AddressHelper addr;
        addr.SetBase("10.0.0.0", "255.255.255.0");
        addr.Assign(bd);
        PointToPointHelper acc;
        acc.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
        acc.SetChannelAttribute("Delay", StringValue("2ms"));
        for (uint32_t i = 0; i <= nTcp; i++)
        {
            NetDeviceContainer d = acc.Install(left.Get(i), routers.Get(0));
            addr.SetBase(Ipv4Address((10u << 24) | ((1 + i) << 8)), "255.255.255.0");
            addr.Assign(d);
        }
        NetDeviceContainer rd = acc.Install(routers.Get(1), right.Get(0));
        addr.SetBase("10.200.0.0", "255.255.255.0");
        Ipv4InterfaceContainer ri = addr.Assign(rd);
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
        Ptr<ChokeQueueDisc> q = DynamicCast<ChokeQueueDisc>(qd.Get(0));
        q->AssignStreams(11);

        for (uint32_t i = 0; i < nTcp; i++)
        {
            BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ri.GetAddress(1), 5000 + i));
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            ApplicationContainer a = bulk.Install(left.Get(i));
            a.Start(Seconds(0.1 * i));
            PacketSinkHelper sink("ns3::TcpSocketFactory",
                                  InetSocketAddress(Ipv4Address::GetAny(), 5000 + i));
            sink.Install(right.Get(0));
        }
        OnOffHelper udp("ns3::UdpSocketFactory", InetSocketAddress(ri.GetAddress(1), 9));
        udp.SetConstantRate(DataRate("4Mbps"), 1000);
        udp.Install(left.Get(nTcp)).Start(Seconds(0));
        bd.Get(0)->TraceConnectWithoutContext("PhyTxBegin",
                                              MakeCallback(&ChokeDumbbellTestCase::OnTx, this));
        Simulator::Stop(Seconds(15));
        Simulator::Run();

        /* LinkBandwidth 0: the device's 2 Mbit/s */
        struct choke_params p = WithWlog(Parse({"limit", "200", "min", "40", "max", "120",
                                                "avpkt", "500", "harddrop", "bandwidth", "2mbit"}),
                                         9);
        NS_TEST_ASSERT_MSG_EQ(q->GetConfigString(),
                              Format(p.cfg),
                              "LinkBandwidth from the device's DataRate");
        NS_TEST_ASSERT_MSG_EQ(q->GetWarnings().size(), 0, "no warning with a device rate");

        const QueueDisc::Stats& st = q->GetStats();
        NS_TEST_ASSERT_MSG_EQ(st.nTotalReceivedPackets,
                              st.nTotalSentPackets + st.nTotalDroppedPackets + q->GetNPackets(),
                              "conservation");
        std::string why;
        NS_TEST_ASSERT_MSG_EQ(q->CheckInvariants(&why), true, why);
        NS_TEST_ASSERT_MSG_GT(q->GetChokeStats().matched, 100, "matches");
        double udpShare = double(m_udpTx) / double(m_udpTx + m_tcpTx);
        NS_LOG_INFO("dumbbell: UDP share " << udpShare << ", matched " << q->GetChokeStats().matched
                                           << " of " << st.nTotalReceivedPackets);
        NS_TEST_ASSERT_MSG_LT(udpShare, 0.6, "CHOKe keeps the flood (2c) from the whole link");
        NS_TEST_ASSERT_MSG_GT(m_tcpTx, 0, "TCP gets through");
        Simulator::Destroy();
    }
};

} // namespace

/**
 * @ingroup choke
 * @defgroup choke-tests CHOKe queue disc tests
 */

/**
 * @ingroup choke-tests
 * The ChokeQueueDisc unit tests: queue discs driven directly, beside a
 * bare libchoke.
 */
class ChokeQueueDiscTestSuite : public TestSuite
{
  public:
    ChokeQueueDiscTestSuite()
        : TestSuite("choke-queue-disc", TestSuite::Type::UNIT)
    {
        AddTestCase(new ChokeAttributesTestCase(), Duration::QUICK);
        AddTestCase(new ChokeDecisionsTestCase(), Duration::QUICK);
        AddTestCase(new ChokeDropReasonsTestCase(), Duration::QUICK);
        AddTestCase(new ChokeConservationTestCase(), Duration::QUICK);
        AddTestCase(new ChokeMatchThresholdTestCase(), Duration::QUICK);
        AddTestCase(new ChokeFlowKeyTestCase(), Duration::QUICK);
        AddTestCase(new ChokeEcnTestCase(), Duration::QUICK);
        AddTestCase(new ChokeUnmarkableTestCase(), Duration::QUICK);
        AddTestCase(new ChokeLimitTestCase(), Duration::QUICK);
        AddTestCase(new ChokeClassfulParentTestCase(), Duration::QUICK);
        AddTestCase(new ChokeTracesTestCase(), Duration::QUICK);
    }
};

/// The unit suite's static instance.
static ChokeQueueDiscTestSuite g_chokeQueueDiscTestSuite;

/**
 * @ingroup choke-tests
 * The ChokeQueueDisc system test: TCP and a UDP flood through real
 * point-to-point devices for 15 simulated seconds.
 */
class ChokeQueueDiscSystemTestSuite : public TestSuite
{
  public:
    ChokeQueueDiscSystemTestSuite()
        : TestSuite("choke-queue-disc-system", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new ChokeDumbbellTestCase(), Duration::QUICK);
    }
};

/// The system suite's static instance.
static ChokeQueueDiscSystemTestSuite g_chokeQueueDiscSystemTestSuite;
