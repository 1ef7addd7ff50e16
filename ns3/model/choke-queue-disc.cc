/* SPDX-License-Identifier: GPL-2.0-only */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * ns3::ChokeQueueDisc on libchoke. What happens to a packet is decided by
 * choke_enqueue() / choke_dequeue(); this file only adapts ns-3's items,
 * time, randomness and statistics to the core (docs/ns3.md).
 *
 * Accounting, in QueueDisc's terms:
 *  - an arrival the core admits is enqueued in the internal queue (its
 *    Enqueue trace updates the queue disc's counters); a mark is reported
 *    through Mark() first;
 *  - an arrival the core drops is reported with DropBeforeEnqueue() and the
 *    reason (match, unforced, forced, limit); an arrival the core marked and
 *    then tail-dropped is reported marked and dropped, as Linux counts it;
 *  - a queued packet a match removes (a victim) leaves the internal queue as
 *    dequeued (its Dequeue trace fires) and is then reported with
 *    DropAfterDequeue(MATCH_DROP), the way ns-3 reports any packet a queue
 *    disc takes out and drops; so received = dropped before enqueue +
 *    enqueued, queued = enqueued - dequeued and sent = dequeued - dropped
 *    after dequeue hold at every moment.
 */
#include "choke-queue-disc.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/buffer.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/ipv6-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"
#include "ns3/packet-filter.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChokeQueueDisc");

NS_OBJECT_ENSURE_REGISTERED(ChokeInternalQueue);
NS_OBJECT_ENSURE_REGISTERED(ChokeQueueDisc);

/* ---- the internal queue ---- */

TypeId
ChokeInternalQueue::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ChokeInternalQueue")
                            .SetParent<Queue<QueueDiscItem>>()
                            .SetGroupName("Choke")
                            .AddConstructor<ChokeInternalQueue>()
                            .AddAttribute("MaxSize",
                                          "The most the queue holds (the queue disc's MaxSize).",
                                          QueueSizeValue(QueueSize("1000p")),
                                          MakeQueueSizeAccessor(&QueueBase::SetMaxSize,
                                                                &QueueBase::GetMaxSize),
                                          MakeQueueSizeChecker());
    return tid;
}

bool
ChokeInternalQueue::Enqueue(Ptr<QueueDiscItem> item)
{
    return DoEnqueue(GetContainer().end(), item);
}

Ptr<QueueDiscItem>
ChokeInternalQueue::Dequeue()
{
    return DoDequeue(GetContainer().begin());
}

Ptr<QueueDiscItem>
ChokeInternalQueue::Remove()
{
    return DoRemove(GetContainer().begin());
}

Ptr<const QueueDiscItem>
ChokeInternalQueue::Peek() const
{
    return DoPeek(GetContainer().begin());
}

bool
ChokeInternalQueue::EnqueueAt(Ptr<QueueDiscItem> item, Position& pos)
{
    Iterator it;
    if (!DoEnqueue(GetContainer().end(), item, it))
    {
        return false;
    }
    pos = it;
    return true;
}

Ptr<QueueDiscItem>
ChokeInternalQueue::DequeueAt(Position pos)
{
    return DoDequeue(pos);
}

ChokeInternalQueue::Position
ChokeInternalQueue::Head() const
{
    return GetContainer().begin();
}

ChokeInternalQueue::Position
ChokeInternalQueue::End() const
{
    return GetContainer().end();
}

/* ---- the queue disc ---- */

namespace
{
/* The shortest decimal form that reads back as the same double. */
std::string
ExactDouble(double v)
{
    char buf[64];
    for (int prec = 6; prec <= 17; prec++)
    {
        std::snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (std::strtod(buf, nullptr) == v)
        {
            break;
        }
    }
    return buf;
}

/* A threshold attribute as a whole number for tc, or an error. */
bool
WholeNumber(const char* name, double v, std::string* out, std::string* error)
{
    if (!(v >= 0 && v <= 4294967295.0) || v != std::floor(v))
    {
        *error = std::string(name) + " " + ExactDouble(v) +
                 " is not a whole number from 0 to 4294967295 (libchoke counts thresholds in "
                 "whole packets, or bytes with MaxSize in bytes)";
        return false;
    }
    *out = std::to_string(static_cast<uint64_t>(v));
    return true;
}
} // namespace

TypeId
ChokeQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ChokeQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("Choke")
            .AddConstructor<ChokeQueueDisc>()
            .AddAttribute("Discipline",
                          "What libchoke runs: Choke (sch_choke), Red (sch_red's decisions, in "
                          "packets) or Fifo (tail drop at MaxSize).",
                          EnumValue(CHOKE),
                          MakeEnumAccessor(&ChokeQueueDisc::m_discipline),
                          MakeEnumChecker(CHOKE, "Choke", RED, "Red", FIFO, "Fifo"))
            .AddAttribute("MaxSize",
                          "The queue limit (tc's limit): packets, or bytes for libchoke's byte "
                          "mode (then MinTh and MaxTh are bytes too).",
                          QueueSizeValue(QueueSize("1000p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("MinTh",
                          "Minimum average queue threshold (tc's min); 0: MaxTh / 3.",
                          DoubleValue(0),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_minTh),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxTh",
                          "Maximum average queue threshold (tc's max); 0: MaxSize / 4.",
                          DoubleValue(0),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_maxTh),
                          MakeDoubleChecker<double>())
            .AddAttribute("QW",
                          "Weight of the average, rounded to the nearest power of two 2^-Wlog "
                          "(Linux's RED can hold no other); 0: derived from Burst as tc does.",
                          DoubleValue(0),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_qW),
                          MakeDoubleChecker<double>())
            .AddAttribute("Burst",
                          "Packets the average may absorb (tc's burst), from which tc derives "
                          "the weight; 0: (2 MinTh + MaxTh) / 3.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ChokeQueueDisc::m_burst),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LInterm",
                          "The marking probability at MaxTh is 1 / LInterm (tc's probability).",
                          DoubleValue(50),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_lInterm),
                          MakeDoubleChecker<double>())
            .AddAttribute("MeanPktSize",
                          "Average packet size in bytes (tc's avpkt).",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&ChokeQueueDisc::m_meanPktSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LinkBandwidth",
                          "The link rate, for the idle-time table (tc's bandwidth); 0: the "
                          "DataRate attribute of the device the queue disc is installed on.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&ChokeQueueDisc::m_linkBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("UseEcn",
                          "Mark ECN-capable packets instead of dropping them (tc's ecn).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("UseHardDrop",
                          "Drop, never mark, when the average is above MaxTh (harddrop).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_useHardDrop),
                          MakeBooleanChecker())
            .AddAttribute("Draws",
                          "Queued packets compared with each arrival (libchoke's draws N, "
                          "1 to 16; 1 is mainline CHOKe).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&ChokeQueueDisc::m_draws),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Adaptive",
                          "The paper's self-adjusting number of draws (libchoke's adaptive).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_adaptive),
                          MakeBooleanChecker())
            .AddAttribute("Geometric",
                          "gCHOKe: draw again after each match, up to this many draws "
                          "(libchoke's geometric CAP, 1 to 16); 0: off.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ChokeQueueDisc::m_geometric),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Protect",
                          "Hold every flow to about its fair share of the link with a table "
                          "of this many flows (libchoke's protect N: a power of two, 8 to "
                          "256; docs/variants.md); 0: off. Combines with Draws, Adaptive "
                          "and Geometric; packets only.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ChokeQueueDisc::m_protect),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("KernelIdleClock",
                          "Measure idle time in microseconds as Linux does, not in the 64 ns "
                          "ticks tc builds its table for (docs/core.md).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_kernelIdleClock),
                          MakeBooleanChecker());
    return tid;
}

ChokeQueueDisc::ChokeQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE),
      m_discipline(CHOKE),
      m_minTh(0),
      m_maxTh(0),
      m_qW(0),
      m_burst(0),
      m_lInterm(50),
      m_meanPktSize(1000),
      m_useEcn(false),
      m_useHardDrop(false),
      m_draws(1),
      m_adaptive(false),
      m_geometric(0),
      m_protect(0),
      m_kernelIdleClock(false),
      m_freeSlot(0),
      m_useFilters(false),
      m_initialized(false)
{
    NS_LOG_FUNCTION(this);
    std::memset(&m_q, 0, sizeof(m_q));
    std::memset(&m_params, 0, sizeof(m_params));
    m_uv = CreateObject<UniformRandomVariable>();
}

ChokeQueueDisc::~ChokeQueueDisc()
{
    NS_LOG_FUNCTION(this);
}

void
ChokeQueueDisc::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_uv = nullptr;
    m_queue = nullptr;
    m_ring.clear();
    m_slots.clear();
    m_initialized = false;
    QueueDisc::DoDispose();
}

int64_t
ChokeQueueDisc::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_uv->SetStream(stream);
    return 1;
}

uint64_t
ChokeQueueDisc::LinkRate() const
{
    if (m_linkBandwidth.GetBitRate() > 0)
    {
        return m_linkBandwidth.GetBitRate();
    }
    Ptr<NetDeviceQueueInterface> ndqi = GetNetDeviceQueueInterface();
    if (!ndqi)
    {
        return 0;
    }
    Ptr<NetDevice> dev = ndqi->GetObject<NetDevice>();
    DataRateValue rate;
    if (dev && dev->GetAttributeFailSafe("DataRate", rate))
    {
        return rate.Get().GetBitRate();
    }
    return 0;
}

std::vector<std::string>
ChokeQueueDisc::GetTcWords(std::string* error) const
{
    std::vector<std::string> w;
    QueueSize size = GetMaxSize();
    bool bytes = size.GetUnit() == QueueSizeUnit::BYTES;
    std::string v;

    if (size.GetValue() == 0)
    {
        *error = "MaxSize is 0";
        return {};
    }
    w.emplace_back("limit");
    w.emplace_back(std::to_string(size.GetValue()));
    if (m_discipline == FIFO)
    {
        if (bytes)
        {
            *error = "the Fifo discipline counts packets: give MaxSize in packets";
            return {};
        }
        return w;
    }
    if (m_discipline != CHOKE && m_discipline != RED)
    {
        *error = "unknown Discipline";
        return {};
    }
    if (bytes)
    {
        w.emplace_back("bytes");
    }
    uint64_t bps = LinkRate();
    if (!bps)
    {
        *error = "LinkBandwidth is 0 and the queue disc is not installed on a device with a "
                 "DataRate attribute: set LinkBandwidth (tc's bandwidth) to the link's rate";
        return {};
    }
    w.emplace_back("bandwidth");
    w.emplace_back(std::to_string(bps) + "bit");
    if (m_minTh != 0)
    {
        if (!WholeNumber("MinTh", m_minTh, &v, error))
        {
            return {};
        }
        w.emplace_back("min");
        w.emplace_back(v);
    }
    if (m_maxTh != 0)
    {
        if (!WholeNumber("MaxTh", m_maxTh, &v, error))
        {
            return {};
        }
        w.emplace_back("max");
        w.emplace_back(v);
    }
    if (m_burst)
    {
        w.emplace_back("burst");
        w.emplace_back(std::to_string(m_burst));
    }
    w.emplace_back("avpkt");
    w.emplace_back(std::to_string(m_meanPktSize));
    if (!(m_lInterm > 0) || std::isinf(m_lInterm))
    {
        *error = "LInterm " + ExactDouble(m_lInterm) +
                 " must be positive and finite (the probability at MaxTh is 1 / LInterm)";
        return {};
    }
    w.emplace_back("probability");
    w.emplace_back(ExactDouble(1.0 / m_lInterm));
    if (m_useEcn)
    {
        w.emplace_back("ecn");
    }
    if (m_useHardDrop)
    {
        w.emplace_back("harddrop");
    }
    /* The variants: each is one attribute and its words; they are
     * alternatives, so at most one may be set. */
    int variants = (m_draws != 1) + m_adaptive + (m_geometric != 0);
    if (variants > 1)
    {
        *error = "Draws, Adaptive and Geometric are alternatives: set at most one";
        return {};
    }
    if (m_draws != 1)
    {
        w.emplace_back("draws");
        w.emplace_back(std::to_string(m_draws));
    }
    if (m_adaptive)
    {
        w.emplace_back("adaptive");
    }
    if (m_geometric)
    {
        w.emplace_back("geometric");
        w.emplace_back(std::to_string(m_geometric));
    }
    /* protect combines with the draw variants */
    if (m_protect)
    {
        w.emplace_back("protect");
        w.emplace_back(std::to_string(m_protect));
    }
    return w;
}

bool
ChokeQueueDisc::BuildConfig(struct choke_params* p, std::string* error) const
{
    std::vector<std::string> words = GetTcWords(error);
    if (words.empty())
    {
        return false;
    }
    std::vector<char*> argv;
    std::string joined;
    for (auto& s : words)
    {
        argv.push_back(const_cast<char*>(s.c_str()));
        joined += (joined.empty() ? "" : " ") + s;
    }
    char errbuf[CHOKE_ERRBUF_SIZE];
    if (choke_params_parse(static_cast<int>(argv.size()),
                           argv.data(),
                           static_cast<int>(m_discipline),
                           nullptr,
                           p,
                           errbuf, sizeof(errbuf)))
    {
        *error = std::string(errbuf) + " (tc words from the attributes: " + joined + ")";
        return false;
    }
    if (m_discipline != FIFO && m_qW != 0)
    {
        /* ns-3's RED sets the weight directly; Linux holds it as 2^-Wlog.
         * The idle table depends on Wlog, so it is derived again with tc's
         * own function, and the kernel's checks are applied again. */
        if (!(m_qW > 0 && m_qW < 1))
        {
            *error = "QW " + ExactDouble(m_qW) +
                     " must be 0 (derive it from Burst as tc does) or between 0 and 1 "
                     "(ns-3 RED's automatic settings are not available)";
            return false;
        }
        if (m_burst)
        {
            *error = "QW and Burst both set the weight: set one";
            return false;
        }
        long wlog = std::lround(-std::log2(m_qW));
        if (wlog < 1 || wlog > 31)
        {
            *error = "QW " + ExactDouble(m_qW) + " is outside 2^-31 .. 2^-1";
            return false;
        }
        p->cfg.Wlog = static_cast<uint8_t>(wlog);
        int scell = choke_tc_idle_damping(p->cfg.Wlog,
                                          p->avpkt,
                                          p->bandwidth_bytes_per_sec,
                                          p->cfg.stab,
                                          &p->xmit_ticks);
        if (scell < 0)
        {
            *error = "failed to calculate the idle damping table for QW " + ExactDouble(m_qW);
            return false;
        }
        p->cfg.Scell_log = static_cast<uint8_t>(scell);
        const char* why = nullptr;
        if (choke_config_check(&p->cfg, &why))
        {
            *error = std::string("the kernel would reject this configuration: ") +
                     (why ? why : "?") + " (QW " + ExactDouble(m_qW) + ")";
            return false;
        }
    }
    p->cfg.idle_unit = m_kernelIdleClock ? CHOKE_IDLE_KERNEL_US : CHOKE_IDLE_TICKS64;
    return true;
}

bool
ChokeQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    /* ns-3's builds report CheckConfig's NS_LOG_ERROR only with logging
     * compiled in; the reason is part of the fatal message instead. */
    NS_ABORT_MSG_IF(GetNQueueDiscClasses() > 0, "ChokeQueueDisc cannot have classes");
    NS_ABORT_MSG_IF(GetNInternalQueues() > 0,
                    "ChokeQueueDisc keeps its own internal queue: do not add one");
    std::string error;
    NS_ABORT_MSG_UNLESS(BuildConfig(&m_params, &error), "ChokeQueueDisc: " << error);
    m_warnings.clear();
    for (int i = 0; i < m_params.nwarnings; i++)
    {
        m_warnings.emplace_back(m_params.warnings[i]);
        NS_LOG_WARN(m_params.warnings[i]);
    }
    m_useFilters = GetNPacketFilters() > 0;
    m_queue = CreateObjectWithAttributes<ChokeInternalQueue>("MaxSize",
                                                             QueueSizeValue(GetMaxSize()));
    AddInternalQueue(m_queue);
    return true;
}

void
ChokeQueueDisc::InitializeParams()
{
    NS_LOG_FUNCTION(this);
    const struct choke_config& c = m_params.cfg;
    m_ring.assign(choke_ring_slots(c.limit), choke_slot{});
    NS_ABORT_MSG_UNLESS(m_ring.size() * sizeof(choke_slot) == choke_ring_bytes(c.limit),
                        "ChokeQueueDisc: ring size mismatch");
    int r = choke_init(&m_q, &c, m_ring.data(), choke_ring_bytes(c.limit));
    NS_ABORT_MSG_IF(r, "ChokeQueueDisc: libchoke refused the configuration (" << r << ")");
    struct choke_ops ops = {};
    ops.random_u32 = &ChokeQueueDisc::RandomU32;
    ops.same_flow = m_useFilters ? nullptr : &ChokeQueueDisc::SameFlow;
    ops.ctx = this;
    choke_set_ops(&m_q, &ops);
    /* the core holds at most limit packets; one more slot for an arrival */
    m_slots.assign(static_cast<size_t>(c.limit) + 1, Slot{});
    for (uint32_t i = 0; i < m_slots.size(); i++)
    {
        m_slots[i].next = i + 1;
    }
    m_freeSlot = 0;
    m_initialized = true;
}

ChokeQueueDisc::Slot*
ChokeQueueDisc::AllocSlot()
{
    NS_ABORT_MSG_IF(m_freeSlot >= m_slots.size(), "ChokeQueueDisc: out of slots");
    Slot* s = &m_slots[m_freeSlot];
    m_freeSlot = s->next;
    return s;
}

void
ChokeQueueDisc::FreeSlot(Slot* s)
{
    s->next = m_freeSlot;
    m_freeSlot = static_cast<uint32_t>(s - m_slots.data());
}

uint64_t
ChokeQueueDisc::NowNs() const
{
    int64_t ns = Simulator::Now().GetNanoSeconds();
    return ns > 0 ? static_cast<uint64_t>(ns) : 0;
}

uint32_t
ChokeQueueDisc::RandomU32(void* ctx)
{
    return static_cast<ChokeQueueDisc*>(ctx)->m_uv->GetInteger(0, 0xffffffffu);
}

bool
ChokeQueueDisc::SameFlow(void*, const void* queued, const void* arriving)
{
    return choke_flow_key_equal(&static_cast<const Slot*>(queued)->key,
                          &static_cast<const Slot*>(arriving)->key);
}

uint32_t
ChokeQueueDisc::FlowOf(Ptr<const QueueDiscItem> item, Slot* slot) const
{
    /* The IP header and the start of the payload as libchoke's flow
     * dissector reads a raw IP packet (docs/flows.md): addresses,
     * protocol, ports, fragments and IPv6 extension headers all as in the
     * other hosts. Anything else is keyed by its protocol number, as an
     * Ethernet frame of that ethertype. */
    uint8_t frame[40 + 256];
    uint32_t n = 0;
    int link = CHOKE_LINK_RAW;
    Ptr<const Ipv4QueueDiscItem> ip4 = DynamicCast<const Ipv4QueueDiscItem>(item);
    Ptr<const Ipv6QueueDiscItem> ip6;
    if (ip4)
    {
        const Ipv4Header& h = ip4->GetHeader();
        Buffer b;
        b.AddAtStart(h.GetSerializedSize());
        h.Serialize(b.Begin());
        n = b.GetSize();
        b.CopyData(frame, n);
        n += item->GetPacket()->CopyData(frame + n, 64);
    }
    else if ((ip6 = DynamicCast<const Ipv6QueueDiscItem>(item)))
    {
        const Ipv6Header& h = ip6->GetHeader();
        Buffer b;
        b.AddAtStart(h.GetSerializedSize());
        h.Serialize(b.Begin());
        n = b.GetSize();
        b.CopyData(frame, n);
        n += item->GetPacket()->CopyData(frame + n, sizeof(frame) - n);
    }
    else
    {
        std::memset(frame, 0, 12);
        frame[12] = static_cast<uint8_t>(item->GetProtocol() >> 8);
        frame[13] = static_cast<uint8_t>(item->GetProtocol());
        n = 14;
        link = CHOKE_LINK_ETHERNET;
    }
    choke_flow_key_from_frame(frame, n, link, &slot->key, nullptr);
    return choke_flow_key_hash(&slot->key, FLOW_HASH_SEED);
}

uint32_t
ChokeQueueDisc::GetFlowValue(Ptr<const QueueDiscItem> item) const
{
    Slot s;
    return FlowOf(item, &s);
}

bool
ChokeQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    NS_ABORT_MSG_UNLESS(m_initialized,
                        "ChokeQueueDisc: a packet arrived before the queue disc was initialized "
                        "(Initialize() it, or install it with a TrafficControlHelper)");
    Slot* s = AllocSlot();
    uint32_t flow;
    if (m_useFilters)
    {
        int32_t cls = Classify(item);
        if (cls == PacketFilter::PF_NO_MATCH)
        {
            FreeSlot(s);
            DropBeforeEnqueue(item, UNCLASSIFIED_DROP);
            return false;
        }
        flow = static_cast<uint32_t>(cls);
    }
    else
    {
        flow = FlowOf(item, s);
    }
    unsigned flags = 0;
    uint8_t ds;
    if (item->GetUint8Value(QueueItem::IP_DSFIELD, ds) && (ds & 3))
    {
        flags |= CHOKE_PKT_ECN_CAPABLE; /* ECT(0), ECT(1) or CE */
    }

    const struct choke_stats* st = choke_get_stats(&m_q);
    uint64_t forcedMarks = st->forced_mark;
    uint64_t probMarks = st->prob_mark;
    struct choke_verdict v;
    enum choke_outcome r = choke_enqueue(&m_q, s, item->GetSize(), flow, flags, NowNs(), &v);

    /* victims first, as Linux drops them before the arrival */
    for (uint32_t i = 0; i < v.nvictims; i++)
    {
        Slot* vs = static_cast<Slot*>(v.victim[i]);
        Ptr<QueueDiscItem> victim = m_queue->DequeueAt(vs->pos);
        FreeSlot(vs);
        DropAfterDequeue(victim, MATCH_DROP);
    }
    const char* mark = st->forced_mark != forcedMarks ? FORCED_MARK
                       : st->prob_mark != probMarks   ? UNFORCED_MARK
                                                      : nullptr;
    if (!choke_outcome_is_drop(r))
    {
        if (choke_outcome_is_marked(r))
        {
            Mark(item, mark ? mark : UNFORCED_MARK);
        }
        bool ok = m_queue->EnqueueAt(item, s->pos);
        NS_ABORT_MSG_UNLESS(ok, "ChokeQueueDisc: the internal queue refused a packet libchoke "
                                "admitted");
        return true;
    }
    if (r == CHOKE_DROP_LIMIT && mark)
    {
        /* marked, then tail-dropped: Linux counts both */
        Mark(item, mark);
    }
    DropBeforeEnqueue(item, DropReason(r));
    FreeSlot(s);
    return false;
}

const char*
ChokeQueueDisc::DropReason(enum choke_outcome outcome)
{
    switch (outcome)
    {
    case CHOKE_DROP_MATCH:
        return MATCH_DROP;
    case CHOKE_DROP_EARLY:
        return UNFORCED_DROP;
    case CHOKE_DROP_FORCED:
        return FORCED_DROP;
    case CHOKE_DROP_LIMIT:
        return LIMIT_DROP;
    case CHOKE_DROP_PROTECT:
        return PROTECT_DROP;
    case CHOKE_QUEUED:
    case CHOKE_QUEUED_MARKED:
        break;
    }
    NS_FATAL_ERROR("ChokeQueueDisc: libchoke outcome " << outcome << " is not a drop");
    return nullptr;
}

Ptr<QueueDiscItem>
ChokeQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    if (!m_initialized)
    {
        return nullptr;
    }
    void* h = choke_dequeue(&m_q, NowNs(), nullptr);
    if (!h)
    {
        return nullptr;
    }
    Slot* s = static_cast<Slot*>(h);
    NS_ABORT_MSG_UNLESS(s->pos == m_queue->Head(),
                        "ChokeQueueDisc: libchoke's head is not the internal queue's");
    Ptr<QueueDiscItem> item = m_queue->DequeueAt(s->pos);
    FreeSlot(s);
    return item;
}

Ptr<const QueueDiscItem>
ChokeQueueDisc::DoPeek()
{
    void* h = m_initialized ? choke_peek(&m_q) : nullptr;
    if (!h)
    {
        return nullptr;
    }
    return *static_cast<Slot*>(h)->pos;
}

std::string
ChokeQueueDisc::GetConfigString() const
{
    char buf[512];
    choke_params_format(&m_params.cfg, buf, sizeof(buf));
    return buf;
}

const std::vector<std::string>&
ChokeQueueDisc::GetWarnings() const
{
    return m_warnings;
}

const struct choke_stats&
ChokeQueueDisc::GetChokeStats() const
{
    return *choke_get_stats(&m_q);
}

const struct choke_config&
ChokeQueueDisc::GetChokeConfig() const
{
    return m_params.cfg;
}

double
ChokeQueueDisc::GetAverageQueue() const
{
    if (!m_initialized)
    {
        return 0;
    }
    return static_cast<double>(choke_qavg_scaled(&m_q)) / static_cast<double>(choke_wscale(&m_q));
}

bool
ChokeQueueDisc::CheckInvariants(std::string* error) const
{
    if (!m_initialized)
    {
        *error = "not initialized";
        return false;
    }
    int r = choke_check_invariants(&m_q);
    if (r)
    {
        *error = std::string("libchoke: ") + choke_invariant_name(r);
        return false;
    }
    if (m_queue->GetNPackets() != choke_qlen(&m_q) ||
        m_queue->GetNBytes() != choke_backlog(&m_q))
    {
        *error = "internal queue holds " + std::to_string(m_queue->GetNPackets()) + " packets / " +
                 std::to_string(m_queue->GetNBytes()) + " bytes, libchoke " +
                 std::to_string(choke_qlen(&m_q)) + " / " + std::to_string(choke_backlog(&m_q));
        return false;
    }
    ChokeInternalQueue::Position it = m_queue->Head();
    for (uint32_t i = 0; i < choke_span(&m_q); i++)
    {
        const struct choke_slot* cs = choke_slot_at(&m_q, i);
        if (!cs->pkt)
        {
            continue;
        }
        const Slot* s = static_cast<const Slot*>(cs->pkt);
        if (it == m_queue->End() || s->pos != it)
        {
            *error = "ring slot " + std::to_string(i) + " is not the next item of the internal queue";
            return false;
        }
        if ((*it)->GetSize() != cs->len)
        {
            *error = "ring slot " + std::to_string(i) + " has the wrong length";
            return false;
        }
        ++it;
    }
    if (it != m_queue->End())
    {
        *error = "the internal queue holds items libchoke does not";
        return false;
    }
    return true;
}

} // namespace ns3
