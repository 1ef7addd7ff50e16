/* SPDX-License-Identifier: GPL-2.0-only */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * ns3::ChokeQueueDisc on libchoke. What happens to a packet is decided by
 * choke_enqueue() / choke_dequeue(); this file adapts ns-3's items, time,
 * randomness, attributes and statistics to the core (doc/choke.rst).
 *
 * Accounting, in QueueDisc's terms:
 *  - an arrival the core admits is enqueued in the internal queue (its
 *    Enqueue trace updates the queue disc's counters); a mark is reported
 *    through Mark() first, and a packet Mark() cannot mark is dropped as RED
 *    drops it (the core is told: choke_enqueue_unmarkable);
 *  - an arrival the core drops is reported with DropBeforeEnqueue() and the
 *    reason; an arrival the core marked and then tail-dropped is reported
 *    marked and dropped, as Linux counts it;
 *  - a queued packet a match removes (a victim) fires the Victim trace, then
 *    leaves the internal queue and is reported with
 *    DropAfterDequeue(MATCH_DROP). QueueDisc has one way to take a packet
 *    out of its count, the internal queue's Dequeue trace, which also fires
 *    the queue disc's Dequeue and SojournTime traces (QueueDisc::Dequeue
 *    asserts queued = enqueued - dequeued), so a victim fires them too, as
 *    CoDel's drops do; the Victim trace just before says which they are.
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
#include "ns3/queue.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <choke/core.h>
#include <choke/params.h>
#include <choke/pkt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <typeinfo>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChokeQueueDisc");

static_assert(static_cast<int>(ChokeQueueDisc::CHOKE) == CHOKE_KIND_CHOKE &&
                  static_cast<int>(ChokeQueueDisc::RED) == CHOKE_KIND_RED &&
                  static_cast<int>(ChokeQueueDisc::FIFO) == CHOKE_KIND_FIFO,
              "Discipline values are libchoke's kinds");

/* ---- ns-3 3.37 and the latest release ---- */

namespace
{
/* EnumValue became a class template in ns-3.41 (and MakeEnumAccessor takes
 * the enum type first): tell which this ns-3 has. */
template <template <typename> class T>
constexpr bool
IsClassTemplate(int)
{
    return true;
}

template <typename T>
constexpr bool
IsClassTemplate(long)
{
    return false;
}

template <typename E, typename C>
Ptr<const AttributeAccessor>
EnumAccessor(E C::*member)
{
    if constexpr (IsClassTemplate<EnumValue>(0))
    {
        return MakeEnumAccessor<E>(member);
    }
    else
    {
        return MakeEnumAccessor(member);
    }
}

/* ---- a checker that says why it refuses ---- */

/* An attribute checker that refuses what `base` refuses and what `ok`
 * rejects, and says so on standard error with the attribute's rule (ns-3's
 * own message names the attribute only), so that Config::SetDefault,
 * ObjectFactory::Set and CommandLine refuse a bad value at once, clearly. */
class ExplainingChecker : public AttributeChecker
{
  public:
    ExplainingChecker(Ptr<const AttributeChecker> base,
                      std::function<bool(const AttributeValue&)> ok,
                      std::string name,
                      std::string rule)
        : m_base(base),
          m_ok(std::move(ok)),
          m_name(std::move(name)),
          m_rule(std::move(rule))
    {
    }

    bool Check(const AttributeValue& value) const override
    {
        if (m_base->Check(value) && (!m_ok || m_ok(value)))
        {
            return true;
        }
        /* CreateValidValue tries a StringValue first: only a value of the
         * attribute's own type is refused out loud */
        Ptr<AttributeValue> proto = m_base->Create();
        if (typeid(*proto) == typeid(value))
        {
            std::cerr << "ns3::ChokeQueueDisc::" << m_name << ": "
                      << value.SerializeToString(m_base) << " refused: " << m_rule << std::endl;
        }
        return false;
    }

    std::string GetValueTypeName() const override
    {
        return m_base->GetValueTypeName();
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return m_base->HasUnderlyingTypeInformation();
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return m_base->GetUnderlyingTypeInformation() + " (" + m_rule + ")";
    }

    Ptr<AttributeValue> Create() const override
    {
        return m_base->Create();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        return m_base->Copy(source, destination);
    }

  private:
    Ptr<const AttributeChecker> m_base;              //!< the type and range
    std::function<bool(const AttributeValue&)> m_ok; //!< the rule beyond the range
    std::string m_name;                              //!< the attribute
    std::string m_rule;                              //!< what is accepted
};

Ptr<const AttributeChecker>
Explain(Ptr<const AttributeChecker> base,
        const char* name,
        const char* rule,
        std::function<bool(const AttributeValue&)> ok = nullptr)
{
    return Ptr<const AttributeChecker>(new ExplainingChecker(base, std::move(ok), name, rule),
                                       false);
}

double
DoubleOf(const AttributeValue& v)
{
    return static_cast<const DoubleValue&>(v).Get();
}

uint64_t
UintOf(const AttributeValue& v)
{
    return static_cast<const UintegerValue&>(v).Get();
}

bool
IsWhole(double v)
{
    return v >= 0 && v <= 4294967295.0 && v == std::floor(v);
}

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

/* RED's default link rate (RedQueueDisc's LinkBandwidth), for a queue disc
 * that is told none and sees no device (a child of a classful one). */
const uint64_t RED_DEFAULT_BPS = 1500000;
} // namespace

/* ---- the internal queue ---- */

/**
 * @ingroup choke
 *
 * The internal queue of a ChokeQueueDisc: a FIFO of QueueDiscItems that can
 * also give up an item in the middle (a CHOKe match victim). Its order is
 * always the order of libchoke's ring; only ChokeQueueDisc adds or removes
 * items.
 */
class ChokeInternalQueue : public Queue<QueueDiscItem>
{
  public:
    /// A position in the queue; stays valid until its item leaves.
    using Position = Queue<QueueDiscItem>::ConstIterator;

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    bool Enqueue(Ptr<QueueDiscItem> item) override
    {
        return DoEnqueue(GetContainer().end(), item);
    }

    Ptr<QueueDiscItem> Dequeue() override
    {
        return DoDequeue(GetContainer().begin());
    }

    Ptr<QueueDiscItem> Remove() override
    {
        return DoRemove(GetContainer().begin());
    }

    Ptr<const QueueDiscItem> Peek() const override
    {
        return DoPeek(GetContainer().begin());
    }

    /**
     * Append an item and tell where it is.
     * @param item the item
     * @param pos receives its position
     * @return false if the queue's MaxSize refused it
     */
    bool EnqueueAt(Ptr<QueueDiscItem> item, Position& pos)
    {
        Iterator it;
        if (!DoEnqueue(GetContainer().end(), item, it))
        {
            return false;
        }
        pos = it;
        return true;
    }

    /**
     * Take the item at a position out of the queue, counted as dequeued.
     * @param pos its position
     * @return the item
     */
    Ptr<QueueDiscItem> DequeueAt(Position pos)
    {
        return DoDequeue(pos);
    }

    /// @return the position of the head item (End() if empty)
    Position Head() const
    {
        return GetContainer().begin();
    }

    /// @return the position after the last item
    Position End() const
    {
        return GetContainer().end();
    }
};

NS_OBJECT_ENSURE_REGISTERED(ChokeInternalQueue);

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

/* ---- libchoke's state ---- */

/// What the queue disc keeps beside its attributes: libchoke and the packets.
class ChokeQueueDisc::Impl
{
  public:
    /// What libchoke stores per queued packet.
    struct Slot
    {
        ChokeInternalQueue::Position pos; //!< where the item is in the internal queue
        struct choke_flow_key key;        //!< its flow (without packet filters)
        uint32_t next;                    //!< free-list link
    };

    Impl()
    {
        std::memset(&q, 0, sizeof(q));
        std::memset(&params, 0, sizeof(params));
        uv = CreateObject<UniformRandomVariable>();
    }

    /// @return a free slot
    Slot* AllocSlot()
    {
        NS_ABORT_MSG_IF(freeSlot >= slots.size(), "ChokeQueueDisc: out of slots");
        Slot* s = &slots[freeSlot];
        freeSlot = s->next;
        return s;
    }

    /// @param s the slot to free
    void FreeSlot(Slot* s)
    {
        s->next = freeSlot;
        freeSlot = static_cast<uint32_t>(s - slots.data());
    }

    /// libchoke's random source: ns-3's stream
    static uint32_t RandomU32(void* ctx)
    {
        return static_cast<Impl*>(ctx)->uv->GetInteger(0, 0xffffffffU);
    }

    /// libchoke's exact flow comparison (without packet filters)
    static bool SameFlow(void*, const void* queued, const void* arriving)
    {
        return choke_flow_key_equal(&static_cast<const Slot*>(queued)->key,
                                    &static_cast<const Slot*>(arriving)->key);
    }

    /**
     * Fill in a slot's flow key from the item's headers and return the flow
     * value: the IP header and the start of the payload as libchoke's flow
     * dissector reads a raw IP packet (addresses, protocol, ports,
     * fragments and IPv6 extension headers as in the other hosts); any
     * other item is keyed by its protocol number, as an Ethernet frame of
     * that ethertype.
     * @param item the item
     * @param slot its slot
     * @return the flow value
     */
    static uint32_t FlowOf(Ptr<const QueueDiscItem> item, Slot* slot)
    {
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

    Ptr<UniformRandomVariable> uv;         //!< random numbers for libchoke
    Ptr<ChokeInternalQueue> queue;         //!< the packets, in libchoke's order
    struct choke q;                        //!< libchoke's instance
    struct choke_params params;            //!< its configuration
    std::vector<struct choke_slot> ring;   //!< libchoke's ring memory
    std::vector<Slot> slots;               //!< one per packet libchoke may hold, plus one
    uint32_t freeSlot = 0;                 //!< head of the free list
    bool useFilters = false;               //!< flows from the packet filters
    bool initialized = false;              //!< InitializeParams has run
    std::vector<std::string> warnings;     //!< libchoke's and our warnings
};

/* ---- the queue disc ---- */

NS_OBJECT_ENSURE_REGISTERED(ChokeQueueDisc);

TypeId
ChokeQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ChokeQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("Choke")
            .AddConstructor<ChokeQueueDisc>()
            .AddAttribute("Discipline",
                          "What libchoke runs: Choke (sch_choke), Red (Linux's RED as sch_red "
                          "decides, not ns-3's RedQueueDisc) or Fifo (tail drop at MaxSize).",
                          EnumValue(CHOKE),
                          EnumAccessor(&ChokeQueueDisc::m_discipline),
                          MakeEnumChecker(CHOKE, "Choke", RED, "Red", FIFO, "Fifo"))
            .AddAttribute("MaxSize",
                          "The queue limit (tc's limit): packets, or bytes for libchoke's byte "
                          "mode (then MinTh and MaxTh are bytes too).",
                          QueueSizeValue(QueueSize("25p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("MinTh",
                          "Minimum average queue threshold (tc's min), whole packets (bytes in "
                          "byte mode). MinTh and MaxTh both 0: RedQueueDisc's automatic "
                          "thresholds (from TargetDelay); 0 alone: MaxTh / 3, as tc.",
                          DoubleValue(5),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_minTh),
                          Explain(MakeDoubleChecker<double>(0, 4294967295.0),
                                  "MinTh",
                                  "a whole number of packets (bytes in byte mode): libchoke "
                                  "holds the thresholds as tc sends them",
                                  [](const AttributeValue& v) { return IsWhole(DoubleOf(v)); }))
            .AddAttribute("MaxTh",
                          "Maximum average queue threshold (tc's max), whole packets (bytes); "
                          "0 alone: MaxSize / 4, as tc.",
                          DoubleValue(15),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_maxTh),
                          Explain(MakeDoubleChecker<double>(0, 4294967295.0),
                                  "MaxTh",
                                  "a whole number of packets (bytes in byte mode): libchoke "
                                  "holds the thresholds as tc sends them",
                                  [](const AttributeValue& v) { return IsWhole(DoubleOf(v)); }))
            .AddAttribute("QW",
                          "Weight of the average, rounded to the nearest power of two 2^-Wlog "
                          "(Linux's RED holds no other); 0, -1, -2: RedQueueDisc's automatic "
                          "weights (1-exp(-1/C), from LinkDelay, 1-exp(-10/C)). Not used when "
                          "Burst is set.",
                          DoubleValue(0.002),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_qW),
                          Explain(MakeDoubleChecker<double>(-2, 1),
                                  "QW",
                                  "a weight between 0 and 1, or 0, -1 or -2 for RedQueueDisc's "
                                  "automatic ones",
                                  [](const AttributeValue& v) {
                                      double w = DoubleOf(v);
                                      return (w > 0 && w < 1) || w == 0 || w == -1 || w == -2;
                                  }))
            .AddAttribute("Burst",
                          "Packets the average may absorb (tc's burst), from which tc derives "
                          "the weight; 0: the weight is QW's.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ChokeQueueDisc::m_burst),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LInterm",
                          "The marking probability at MaxTh is 1 / LInterm (tc's probability).",
                          DoubleValue(50),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_lInterm),
                          Explain(MakeDoubleChecker<double>(1, 4294967295.0),
                                  "LInterm",
                                  "1 or more (the probability at MaxTh is 1 / LInterm)"))
            .AddAttribute("MeanPktSize",
                          "Average packet size in bytes (tc's avpkt).",
                          UintegerValue(500),
                          MakeUintegerAccessor(&ChokeQueueDisc::m_meanPktSize),
                          Explain(MakeUintegerChecker<uint32_t>(1),
                                  "MeanPktSize",
                                  "1 byte or more"))
            .AddAttribute("LinkBandwidth",
                          "The link rate, for the idle-time table (tc's bandwidth) and the "
                          "automatic settings; 0: the DataRate of the device the queue disc is "
                          "installed on, else RedQueueDisc's 1.5Mbps (with a warning).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&ChokeQueueDisc::m_linkBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("LinkDelay",
                          "The link delay, for QW = -1 (as RedQueueDisc).",
                          TimeValue(MilliSeconds(20)),
                          MakeTimeAccessor(&ChokeQueueDisc::m_linkDelay),
                          MakeTimeChecker())
            .AddAttribute("TargetDelay",
                          "The queueing delay ARED's automatic thresholds aim at (as "
                          "RedQueueDisc).",
                          TimeValue(MilliSeconds(5)),
                          MakeTimeAccessor(&ChokeQueueDisc::m_targetDelay),
                          Explain(MakeTimeChecker(NanoSeconds(1)),
                                  "TargetDelay",
                                  "above 0"))
            .AddAttribute("UseEcn",
                          "Mark ECN-capable packets instead of dropping them (tc's ecn).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("UseHardDrop",
                          "Drop, never mark, when the average is above MaxTh (tc's harddrop).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_useHardDrop),
                          MakeBooleanChecker())
            .AddAttribute("Gentle",
                          "Gentle RED (libchoke's gentle): between MaxTh and 2 MaxTh the "
                          "probability rises to 1 instead of every packet being dropped. "
                          "Off: Linux's RED (RedQueueDisc's default is on).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_gentle),
                          MakeBooleanChecker())
            .AddAttribute("Wait",
                          "Space marks over 1/p to 2/p packets instead of 0 to 1/p (libchoke's "
                          "wait). Off: Linux's RED (RedQueueDisc's default is on).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_wait),
                          MakeBooleanChecker())
            .AddAttribute("ARED",
                          "Adaptive RED as RedQueueDisc's ARED: automatic MinTh, MaxTh (from "
                          "TargetDelay) and QW, and the probability adapted every 500 ms by "
                          "Linux's algorithm (libchoke's ared).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_ared),
                          MakeBooleanChecker())
            .AddAttribute("AdaptMaxP",
                          "Adapt the probability at MaxTh every 500 ms by Linux's algorithm, "
                          "keeping the thresholds and weight (libchoke's ared).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_adaptMaxP),
                          MakeBooleanChecker())
            .AddAttribute("Interval",
                          "ARED's period: Linux's 500 ms, the only one libchoke has.",
                          TimeValue(MilliSeconds(500)),
                          MakeTimeAccessor(&ChokeQueueDisc::m_interval),
                          Explain(MakeTimeChecker(),
                                  "Interval",
                                  "Linux's ARED adapts every 500ms, libchoke likewise",
                                  [](const AttributeValue& v) {
                                      return static_cast<const TimeValue&>(v).Get() ==
                                             MilliSeconds(500);
                                  }))
            .AddAttribute("Top",
                          "ARED's upper bound of the probability: Linux's 0.5.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_top),
                          Explain(MakeDoubleChecker<double>(),
                                  "Top",
                                  "Linux's ARED stops raising the probability above 0.5",
                                  [](const AttributeValue& v) { return DoubleOf(v) == 0.5; }))
            .AddAttribute("Bottom",
                          "ARED's lower bound of the probability: Linux's 0.01 (0: the same).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_bottom),
                          Explain(MakeDoubleChecker<double>(),
                                  "Bottom",
                                  "Linux's ARED stops lowering the probability below 0.01 (0 "
                                  "or 0.01)",
                                  [](const AttributeValue& v) {
                                      return DoubleOf(v) == 0 || DoubleOf(v) == 0.01;
                                  }))
            .AddAttribute("Alpha",
                          "ARED's increment: Linux's min(0.01, p/4).",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_alpha),
                          Explain(MakeDoubleChecker<double>(),
                                  "Alpha",
                                  "Linux's ARED raises the probability by min(0.01, p/4)",
                                  [](const AttributeValue& v) { return DoubleOf(v) == 0.01; }))
            .AddAttribute("Beta",
                          "ARED's decrement factor: Linux's 0.9.",
                          DoubleValue(0.9),
                          MakeDoubleAccessor(&ChokeQueueDisc::m_beta),
                          Explain(MakeDoubleChecker<double>(),
                                  "Beta",
                                  "Linux's ARED lowers the probability to 0.9 of itself",
                                  [](const AttributeValue& v) { return DoubleOf(v) == 0.9; }))
            .AddAttribute("FengAdaptive",
                          "Feng's adaptive RED: not in libchoke (false only; ARED is).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_fengAdaptive),
                          Explain(MakeBooleanChecker(),
                                  "FengAdaptive",
                                  "Feng's adaptive RED is not in libchoke: use ARED",
                                  [](const AttributeValue& v) {
                                      return !static_cast<const BooleanValue&>(v).Get();
                                  }))
            .AddAttribute("NLRED",
                          "Nonlinear RED: not in libchoke (false only).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_nlred),
                          Explain(MakeBooleanChecker(),
                                  "NLRED",
                                  "nonlinear RED is not in libchoke",
                                  [](const AttributeValue& v) {
                                      return !static_cast<const BooleanValue&>(v).Get();
                                  }))
            .AddAttribute("Draws",
                          "Queued packets compared with each arrival (libchoke's draws N; 1 "
                          "is mainline CHOKe).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&ChokeQueueDisc::m_draws),
                          Explain(MakeUintegerChecker<uint32_t>(1, CHOKE_MAX_DRAWS),
                                  "Draws",
                                  "1 to 16 draws per arrival"))
            .AddAttribute("AdaptiveDraws",
                          "The CHOKe paper's self-adjusting number of draws (libchoke's "
                          "adaptive; RED's adaptive algorithm is ARED).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_adaptiveDraws),
                          MakeBooleanChecker())
            .AddAttribute("Adaptive",
                          "Renamed AdaptiveDraws.",
                          BooleanValue(false),
                          MakeEmptyAttributeAccessor(),
                          MakeBooleanChecker(),
                          TypeId::SupportLevel::OBSOLETE,
                          "renamed AdaptiveDraws (CHOKe's self-adjusting draws); RED's "
                          "adaptive algorithm is ARED")
            .AddAttribute("Geometric",
                          "gCHOKe: draw again after each match, up to this many draws "
                          "(libchoke's geometric CAP); 0: off.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ChokeQueueDisc::m_geometric),
                          Explain(MakeUintegerChecker<uint32_t>(0, CHOKE_MAX_DRAWS),
                                  "Geometric",
                                  "0 (off) or a cap of 1 to 16 draws"))
            .AddAttribute("Protect",
                          "Hold every flow to about its fair share of the link with a table "
                          "of this many flows (libchoke's protect N); 0: off. Combines with "
                          "Draws, AdaptiveDraws and Geometric; packets only.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ChokeQueueDisc::m_protect),
                          Explain(MakeUintegerChecker<uint32_t>(0, CHOKE_PROTECT_MAX),
                                  "Protect",
                                  "0 (off) or a power of two from 8 to 256",
                                  [](const AttributeValue& v) {
                                      uint64_t n = UintOf(v);
                                      return n == 0 || (n >= CHOKE_PROTECT_MIN &&
                                                        n <= CHOKE_PROTECT_MAX && !(n & (n - 1)));
                                  }))
            .AddAttribute("KernelIdleClock",
                          "Measure idle time in microseconds as Linux does, not in the 64 ns "
                          "ticks tc builds its table for.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ChokeQueueDisc::m_kernelIdleClock),
                          MakeBooleanChecker())
            .AddTraceSource("AverageQueue",
                            "RED's average queue after each arrival (packets; bytes in byte "
                            "mode)",
                            MakeTraceSourceAccessor(&ChokeQueueDisc::m_qAvg),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("MaxP",
                            "The probability of a mark at MaxTh (ARED and AdaptMaxP move it)",
                            MakeTraceSourceAccessor(&ChokeQueueDisc::m_maxP),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("Victim",
                            "A queued packet a CHOKe match drops, just before it fires the "
                            "Dequeue, SojournTime and DropAfterDequeue traces",
                            MakeTraceSourceAccessor(&ChokeQueueDisc::m_victimTrace),
                            "ns3::QueueDiscItem::TracedCallback");
    return tid;
}

ChokeQueueDisc::ChokeQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE),
      m_discipline(CHOKE),
      m_minTh(5),
      m_maxTh(15),
      m_qW(0.002),
      m_burst(0),
      m_lInterm(50),
      m_meanPktSize(500),
      m_useEcn(false),
      m_useHardDrop(true),
      m_gentle(false),
      m_wait(false),
      m_ared(false),
      m_adaptMaxP(false),
      m_interval(MilliSeconds(500)),
      m_top(0.5),
      m_bottom(0),
      m_alpha(0.01),
      m_beta(0.9),
      m_fengAdaptive(false),
      m_nlred(false),
      m_draws(1),
      m_adaptiveDraws(false),
      m_geometric(0),
      m_protect(0),
      m_kernelIdleClock(false),
      m_qAvg(0),
      m_maxP(0),
      m_impl(std::make_unique<Impl>())
{
    NS_LOG_FUNCTION(this);
}

ChokeQueueDisc::~ChokeQueueDisc()
{
    NS_LOG_FUNCTION(this);
}

void
ChokeQueueDisc::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_impl->uv = nullptr;
    m_impl->queue = nullptr;
    m_impl->ring.clear();
    m_impl->slots.clear();
    m_impl->initialized = false;
    QueueDisc::DoDispose();
}

int64_t
ChokeQueueDisc::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_impl->uv->SetStream(stream);
    return 1;
}

uint64_t
ChokeQueueDisc::DeviceRate() const
{
    /* Only a root queue disc (and MQ's children) is given the device's
     * queue interface; under a classful parent there is none. */
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

bool
ChokeQueueDisc::Resolve(std::string* error,
                        std::vector<std::string>* warnings,
                        std::vector<std::string>* words,
                        int* wlog) const
{
    std::vector<std::string>& w = *words;
    QueueSize size = GetMaxSize();
    bool bytes = size.GetUnit() == QueueSizeUnit::BYTES;

    w.clear();
    *wlog = 0;
    if (size.GetValue() == 0)
    {
        *error = "MaxSize is 0";
        return false;
    }
    w.emplace_back("limit");
    w.emplace_back(std::to_string(size.GetValue()));
    if (m_discipline == FIFO)
    {
        if (bytes)
        {
            *error = "the Fifo discipline counts packets: give MaxSize in packets";
            return false;
        }
        return true;
    }
    if (m_discipline != CHOKE && m_discipline != RED)
    {
        *error = "unknown Discipline";
        return false;
    }
    if (bytes)
    {
        w.emplace_back("bytes");
    }

    /* the link rate: the attribute, the device's, or RED's default */
    uint64_t bps = m_linkBandwidth.GetBitRate();
    if (!bps)
    {
        bps = DeviceRate();
    }
    if (!bps)
    {
        bps = RED_DEFAULT_BPS;
        warnings->emplace_back("LinkBandwidth is 0 and the queue disc sees no device rate (a "
                               "child of a classful queue disc has none): RedQueueDisc's "
                               "default 1.5Mbps is used for the idle table");
    }
    w.emplace_back("bandwidth");
    w.emplace_back(std::to_string(bps) + "bit");
    double ptc = static_cast<double>(bps) / (8.0 * m_meanPktSize); // packets a second

    /* thresholds: as given, or RedQueueDisc's automatic ones (ARED, or both 0) */
    double minTh = m_minTh;
    double maxTh = m_maxTh;
    if (m_ared || (minTh == 0 && maxTh == 0))
    {
        double exact = std::max(5.0, m_targetDelay.GetSeconds() * ptc / 2.0);
        if (bytes)
        {
            exact *= m_meanPktSize;
        }
        minTh = std::round(exact);
        maxTh = 3 * minTh;
        if (minTh != exact)
        {
            warnings->emplace_back("automatic thresholds " + ExactDouble(exact) + " and " +
                                   ExactDouble(3 * exact) + " rounded to " + ExactDouble(minTh) +
                                   " and " + ExactDouble(maxTh) +
                                   " (libchoke holds whole packets, or bytes)");
        }
    }
    for (int i = 0; i < 2; i++)
    {
        double v = i ? maxTh : minTh;
        if (!IsWhole(v))
        {
            *error = std::string(i ? "MaxTh " : "MinTh ") + ExactDouble(v) +
                     " is not a whole number from 0 to 4294967295 (libchoke counts thresholds "
                     "in whole packets, or bytes with MaxSize in bytes)";
            return false;
        }
        if (v != 0)
        {
            w.emplace_back(i ? "max" : "min");
            w.emplace_back(std::to_string(static_cast<uint64_t>(v)));
        }
    }

    /* the weight: tc's from Burst, or QW rounded to a power of two */
    if (m_burst)
    {
        w.emplace_back("burst");
        w.emplace_back(std::to_string(m_burst));
    }
    else
    {
        double qw = m_ared ? 0 : m_qW;
        if (qw == 0)
        {
            qw = 1.0 - std::exp(-1.0 / ptc);
        }
        else if (qw == -1)
        {
            double rtt = std::max(0.1, 3.0 * (m_linkDelay.GetSeconds() + 1.0 / ptc));
            qw = 1.0 - std::exp(-1.0 / (10 * rtt * ptc));
        }
        else if (qw == -2)
        {
            qw = 1.0 - std::exp(-10.0 / ptc);
        }
        if (!(qw > 0 && qw < 1))
        {
            *error = "QW " + ExactDouble(m_qW) +
                     " must be between 0 and 1, or 0, -1 or -2 for the automatic weights";
            return false;
        }
        long l = std::lround(-std::log2(qw));
        if (l < 1 || l > 31)
        {
            *error = "QW " + ExactDouble(qw) +
                     " is outside 2^-31 .. 2^-1, the weights Linux's RED can hold";
            return false;
        }
        *wlog = static_cast<int>(l);
    }
    w.emplace_back("avpkt");
    w.emplace_back(std::to_string(m_meanPktSize));
    if (!(m_lInterm >= 1) || std::isinf(m_lInterm))
    {
        *error = "LInterm " + ExactDouble(m_lInterm) +
                 " must be 1 or more and finite (the probability at MaxTh is 1 / LInterm)";
        return false;
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
    if (m_gentle)
    {
        w.emplace_back("gentle");
    }
    if (m_wait)
    {
        w.emplace_back("wait");
    }
    if (m_ared || m_adaptMaxP)
    {
        w.emplace_back("ared");
    }
    /* the variants: each is one attribute and its words; the draw variants
     * are alternatives */
    int variants = (m_draws != 1) + m_adaptiveDraws + (m_geometric != 0);
    if (variants > 1)
    {
        *error = "Draws, AdaptiveDraws and Geometric are alternatives: set at most one";
        return false;
    }
    if (m_draws != 1)
    {
        w.emplace_back("draws");
        w.emplace_back(std::to_string(m_draws));
    }
    if (m_adaptiveDraws)
    {
        w.emplace_back("adaptive");
    }
    if (m_geometric)
    {
        w.emplace_back("geometric");
        w.emplace_back(std::to_string(m_geometric));
    }
    if (m_protect)
    {
        w.emplace_back("protect");
        w.emplace_back(std::to_string(m_protect));
    }
    return true;
}

std::vector<std::string>
ChokeQueueDisc::GetTcWords(std::string* error) const
{
    std::vector<std::string> words;
    std::vector<std::string> warnings;
    int wlog;
    if (!Resolve(error, &warnings, &words, &wlog))
    {
        return {};
    }
    return words;
}

bool
ChokeQueueDisc::BuildConfig(struct choke_params* p, std::string* error) const
{
    std::vector<std::string> words;
    std::vector<std::string> notes;
    int wlog;
    if (!Resolve(error, &notes, &words, &wlog))
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
                           errbuf,
                           sizeof(errbuf)))
    {
        *error = std::string(errbuf) + " (tc words from the attributes: " + joined + ")";
        return false;
    }
    if (wlog)
    {
        /* The weight is QW's: Linux holds it as 2^-Wlog. The idle table
         * depends on Wlog, so it is derived again with tc's own function,
         * and the kernel's checks are applied again. tc's warning about the
         * burst it assumed no longer applies. */
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
                     (why ? why : "?") + " (the weight 2^-" + std::to_string(wlog) +
                     " from QW; tc words: " + joined + ")";
            return false;
        }
        int k = 0;
        for (int i = 0; i < p->nwarnings; i++)
        {
            if (std::strncmp(p->warnings[i], "burst ", 6) != 0)
            {
                std::memmove(p->warnings[k++], p->warnings[i], sizeof(p->warnings[i]));
            }
        }
        p->nwarnings = k;
    }
    p->cfg.idle_unit = m_kernelIdleClock ? CHOKE_IDLE_KERNEL_US : CHOKE_IDLE_TICKS64;
    /* our notes after libchoke's, as far as there is room */
    for (auto& n : notes)
    {
        if (p->nwarnings < CHOKE_MAX_WARNINGS)
        {
            std::snprintf(p->warnings[p->nwarnings++], CHOKE_ERRBUF_SIZE, "%s", n.c_str());
        }
    }
    return true;
}

bool
ChokeQueueDisc::CheckAttributes(std::string* error) const
{
    struct choke_params p;
    return BuildConfig(&p, error);
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
    Impl& m = *m_impl;
    std::string error;
    NS_ABORT_MSG_UNLESS(BuildConfig(&m.params, &error), "ChokeQueueDisc: " << error);
    m.warnings.clear();
    for (int i = 0; i < m.params.nwarnings; i++)
    {
        m.warnings.emplace_back(m.params.warnings[i]);
        NS_LOG_WARN(m.params.warnings[i]);
    }
    m.useFilters = GetNPacketFilters() > 0;
    m.queue = CreateObjectWithAttributes<ChokeInternalQueue>("MaxSize",
                                                             QueueSizeValue(GetMaxSize()));
    AddInternalQueue(m.queue);
    return true;
}

void
ChokeQueueDisc::InitializeParams()
{
    NS_LOG_FUNCTION(this);
    Impl& m = *m_impl;
    const struct choke_config& c = m.params.cfg;
    m.ring.assign(choke_ring_slots(c.limit), choke_slot{});
    NS_ABORT_MSG_UNLESS(m.ring.size() * sizeof(choke_slot) == choke_ring_bytes(c.limit),
                        "ChokeQueueDisc: ring size mismatch");
    int r = choke_init(&m.q, &c, m.ring.data(), choke_ring_bytes(c.limit));
    NS_ABORT_MSG_IF(r, "ChokeQueueDisc: libchoke refused the configuration (" << r << ")");
    struct choke_ops ops = {};
    ops.random_u32 = &Impl::RandomU32;
    ops.same_flow = m.useFilters ? nullptr : &Impl::SameFlow;
    ops.ctx = &m;
    choke_set_ops(&m.q, &ops);
    /* the core holds at most limit packets; one more slot for an arrival */
    m.slots.assign(static_cast<size_t>(c.limit) + 1, Impl::Slot{});
    for (uint32_t i = 0; i < m.slots.size(); i++)
    {
        m.slots[i].next = i + 1;
    }
    m.freeSlot = 0;
    m.initialized = true;
    m_maxP = GetMaxP();
    NS_LOG_DEBUG("libchoke runs " << choke_kind_name(c.kind) << " " << GetConfigString());
}

namespace
{
uint64_t
NowNs()
{
    int64_t ns = Simulator::Now().GetNanoSeconds();
    return ns > 0 ? static_cast<uint64_t>(ns) : 0;
}

/* The drop a mark becomes when Mark() fails, and its reason. */
enum choke_outcome
DropOfMark(const char* mark)
{
    return mark == ChokeQueueDisc::FORCED_MARK    ? CHOKE_DROP_FORCED
           : mark == ChokeQueueDisc::PROTECT_MARK ? CHOKE_DROP_PROTECT
                                                  : CHOKE_DROP_EARLY;
}

/* The Stats key of a drop outcome of libchoke (CHOKE_DROP_*). */
const char*
DropReason(enum choke_outcome outcome)
{
    switch (outcome)
    {
    case CHOKE_DROP_MATCH:
        return ChokeQueueDisc::MATCH_DROP;
    case CHOKE_DROP_EARLY:
        return ChokeQueueDisc::UNFORCED_DROP;
    case CHOKE_DROP_FORCED:
        return ChokeQueueDisc::FORCED_DROP;
    case CHOKE_DROP_LIMIT:
        return ChokeQueueDisc::LIMIT_DROP;
    case CHOKE_DROP_PROTECT:
        return ChokeQueueDisc::PROTECT_DROP;
    case CHOKE_QUEUED:
    case CHOKE_QUEUED_MARKED:
        break;
    }
    NS_FATAL_ERROR("ChokeQueueDisc: libchoke outcome " << outcome << " is not a drop");
    return nullptr;
}
} // namespace

uint32_t
ChokeQueueDisc::GetFlowValue(Ptr<const QueueDiscItem> item) const
{
    Impl::Slot s;
    return Impl::FlowOf(item, &s);
}

bool
ChokeQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    Impl& m = *m_impl;
    NS_ABORT_MSG_UNLESS(m.initialized,
                        "ChokeQueueDisc: a packet arrived before the queue disc was initialized "
                        "(Initialize() it, or install it with a TrafficControlHelper)");
    Impl::Slot* s = m.AllocSlot();
    uint32_t flow;
    if (m.useFilters)
    {
        int32_t cls = Classify(item);
        if (cls == PacketFilter::PF_NO_MATCH)
        {
            m.FreeSlot(s);
            NS_LOG_DEBUG("no packet filter classifies " << item << ": " << UNCLASSIFIED_DROP);
            DropBeforeEnqueue(item, UNCLASSIFIED_DROP);
            return false;
        }
        flow = static_cast<uint32_t>(cls);
    }
    else
    {
        flow = Impl::FlowOf(item, s);
    }
    unsigned flags = 0;
    uint8_t ds;
    if (item->GetUint8Value(QueueItem::IP_DSFIELD, ds) && (ds & 3))
    {
        flags |= CHOKE_PKT_ECN_CAPABLE; /* ECT(0), ECT(1) or CE */
    }

    const struct choke_stats* st = choke_get_stats(&m.q);
    uint64_t forcedMarks = st->forced_mark;
    uint64_t probMarks = st->prob_mark;
    uint64_t protectMarks = st->protect_mark;
    struct choke_verdict v;
    enum choke_outcome r = choke_enqueue(&m.q, s, item->GetSize(), flow, flags, NowNs(), &v);
    double avg = GetAverageQueue();
    m_qAvg = avg;
    m_maxP = GetMaxP();

    /* victims first, as Linux drops them before the arrival */
    for (uint32_t i = 0; i < v.nvictims; i++)
    {
        auto* vs = static_cast<Impl::Slot*>(v.victim[i]);
        Ptr<QueueDiscItem> victim = *vs->pos;
        NS_LOG_DEBUG("avg " << avg << ": " << item << " matches queued " << victim
                            << ": both dropped (" << MATCH_DROP << ")");
        m_victimTrace(victim);
        m.queue->DequeueAt(vs->pos);
        m.FreeSlot(vs);
        DropAfterDequeue(victim, MATCH_DROP);
    }
    const char* mark = st->forced_mark != forcedMarks     ? FORCED_MARK
                       : st->prob_mark != probMarks       ? UNFORCED_MARK
                       : st->protect_mark != protectMarks ? PROTECT_MARK
                                                          : nullptr;
    if (!choke_outcome_is_drop(r))
    {
        if (choke_outcome_is_marked(r))
        {
            if (!mark)
            {
                mark = UNFORCED_MARK;
            }
            if (!Mark(item, mark))
            {
                /* the item cannot carry CE: dropped as a packet that is
                 * not ECN-capable is (RedQueueDisc does the same) */
                enum choke_outcome d = DropOfMark(mark);
                int rc = choke_enqueue_unmarkable(&m.q, s, d);
                NS_ABORT_MSG_IF(rc, "ChokeQueueDisc: libchoke cannot take back a mark (" << rc
                                                                                         << ")");
                NS_LOG_DEBUG("avg " << avg << ": " << item << " cannot be marked: dropped ("
                                    << DropReason(d) << ")");
                DropBeforeEnqueue(item, DropReason(d));
                m.FreeSlot(s);
                return false;
            }
            NS_LOG_DEBUG("avg " << avg << ": " << item << " admitted, marked (" << mark << ")");
        }
        else
        {
            NS_LOG_DEBUG("avg " << avg << ": " << item << " admitted");
        }
        bool ok = m.queue->EnqueueAt(item, s->pos);
        NS_ABORT_MSG_UNLESS(ok,
                            "ChokeQueueDisc: the internal queue refused a packet libchoke "
                            "admitted");
        return true;
    }
    if (r == CHOKE_DROP_LIMIT && mark)
    {
        /* marked, then tail-dropped: Linux counts both (the packet is
         * dropped whether or not it could be marked) */
        Mark(item, mark);
    }
    NS_LOG_DEBUG("avg " << avg << ": " << item << " dropped (" << DropReason(r) << ")");
    DropBeforeEnqueue(item, DropReason(r));
    m.FreeSlot(s);
    return false;
}

Ptr<QueueDiscItem>
ChokeQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    Impl& m = *m_impl;
    if (!m.initialized)
    {
        return nullptr;
    }
    void* h = choke_dequeue(&m.q, NowNs(), nullptr);
    if (!h)
    {
        return nullptr;
    }
    auto* s = static_cast<Impl::Slot*>(h);
    NS_ABORT_MSG_UNLESS(s->pos == m.queue->Head(),
                        "ChokeQueueDisc: libchoke's head is not the internal queue's");
    Ptr<QueueDiscItem> item = m.queue->DequeueAt(s->pos);
    m.FreeSlot(s);
    return item;
}

Ptr<const QueueDiscItem>
ChokeQueueDisc::DoPeek()
{
    Impl& m = *m_impl;
    void* h = m.initialized ? choke_peek(&m.q) : nullptr;
    if (!h)
    {
        return nullptr;
    }
    return *static_cast<Impl::Slot*>(h)->pos;
}

std::string
ChokeQueueDisc::GetConfigString() const
{
    char buf[512];
    choke_params_format(&m_impl->params.cfg, buf, sizeof(buf));
    return buf;
}

const std::vector<std::string>&
ChokeQueueDisc::GetWarnings() const
{
    return m_impl->warnings;
}

ChokeQueueDisc::ChokeStats
ChokeQueueDisc::ToChokeStats(const struct choke_stats* s)
{
    ChokeStats o;
    o.offered = s->offered_pkts;
    o.sent = s->sent_pkts;
    o.matched = s->matched;
    o.matchVictims = s->match_victims;
    o.draws = s->draws;
    o.probDrop = s->prob_drop;
    o.probMark = s->prob_mark;
    o.forcedDrop = s->forced_drop;
    o.forcedMark = s->forced_mark;
    o.pdrop = s->pdrop;
    o.protectDrop = s->protect_drop;
    o.protectMark = s->protect_mark;
    return o;
}

ChokeQueueDisc::ChokeStats
ChokeQueueDisc::GetChokeStats() const
{
    if (!m_impl->initialized)
    {
        return ChokeStats();
    }
    return ToChokeStats(choke_get_stats(&m_impl->q));
}

ChokeQueueDisc::Discipline
ChokeQueueDisc::GetDiscipline() const
{
    return m_discipline;
}

double
ChokeQueueDisc::GetAverageQueue() const
{
    if (!m_impl->initialized)
    {
        return 0;
    }
    return static_cast<double>(choke_qavg_scaled(&m_impl->q)) /
           static_cast<double>(choke_wscale(&m_impl->q));
}

double
ChokeQueueDisc::GetMaxP() const
{
    if (!m_impl->initialized || m_discipline == FIFO)
    {
        return 0;
    }
    return choke_max_p(&m_impl->q) / 4294967296.0;
}

bool
ChokeQueueDisc::CheckInvariants(std::string* error) const
{
    const Impl& m = *m_impl;
    if (!m.initialized)
    {
        *error = "not initialized";
        return false;
    }
    int r = choke_check_invariants(&m.q);
    if (r)
    {
        *error = std::string("libchoke: ") + choke_invariant_name(r);
        return false;
    }
    if (m.queue->GetNPackets() != choke_qlen(&m.q) || m.queue->GetNBytes() != choke_backlog(&m.q))
    {
        *error = "internal queue holds " + std::to_string(m.queue->GetNPackets()) +
                 " packets / " + std::to_string(m.queue->GetNBytes()) + " bytes, libchoke " +
                 std::to_string(choke_qlen(&m.q)) + " / " + std::to_string(choke_backlog(&m.q));
        return false;
    }
    ChokeInternalQueue::Position it = m.queue->Head();
    for (uint32_t i = 0; i < choke_span(&m.q); i++)
    {
        const struct choke_slot* cs = choke_slot_at(&m.q, i);
        if (!cs->pkt)
        {
            continue;
        }
        const auto* s = static_cast<const Impl::Slot*>(cs->pkt);
        if (it == m.queue->End() || s->pos != it)
        {
            *error =
                "ring slot " + std::to_string(i) + " is not the next item of the internal queue";
            return false;
        }
        if ((*it)->GetSize() != cs->len)
        {
            *error = "ring slot " + std::to_string(i) + " has the wrong length";
            return false;
        }
        ++it;
    }
    if (it != m.queue->End())
    {
        *error = "the internal queue holds items libchoke does not";
        return false;
    }
    return true;
}

} // namespace ns3
