/* SPDX-License-Identifier: GPL-2.0-only */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * ns3::ChokeQueueDisc: CHOKe (Pan, Prabhakar and Psounis, INFOCOM 2000) in
 * ns-3's traffic-control layer, with every decision taken by libchoke, the
 * same core as Linux's sch_choke semantics in this repository (docs/ns3.md).
 *
 * The queue disc is a thin host: it turns its attributes into the words of
 * `tc qdisc ... choke` and has libchoke's parser derive the configuration
 * (so Wlog, Plog, max_P and the idle table are exactly tc's), gives the core
 * a flow value per packet (the packet's addresses, protocol and ports, read
 * by libchoke's flow dissector; or the class of the attached packet
 * filters), the simulation time and ns-3's random numbers, and reports every
 * verdict through QueueDisc's drop and mark functions with a reason string.
 */
#ifndef CHOKE_QUEUE_DISC_H
#define CHOKE_QUEUE_DISC_H

#include "ns3/data-rate.h"
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/random-variable-stream.h"

#include <choke/core.h>
#include <choke/params.h>
#include <choke/pkt.h>

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup traffic-control
 *
 * The internal queue of a ChokeQueueDisc: a FIFO of QueueDiscItems that can
 * also give up an item in the middle (a CHOKe match victim). Its order is
 * always the order of libchoke's ring; only ChokeQueueDisc should add or
 * remove items.
 */
class ChokeInternalQueue : public Queue<QueueDiscItem>
{
  public:
    /// A position in the queue; stays valid until its item leaves.
    using Position = Queue<QueueDiscItem>::ConstIterator;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    bool Enqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> Dequeue() override;
    Ptr<QueueDiscItem> Remove() override;
    Ptr<const QueueDiscItem> Peek() const override;

    /**
     * Append an item and tell where it is.
     * \param item the item
     * \param pos receives its position
     * \return false if the queue's MaxSize refused it
     */
    bool EnqueueAt(Ptr<QueueDiscItem> item, Position& pos);

    /**
     * Take the item at a position out of the queue, counted and traced as
     * dequeued (the queue disc then reports it as dropped after dequeue).
     * \param pos its position
     * \return the item
     */
    Ptr<QueueDiscItem> DequeueAt(Position pos);

    /// \return the position of the head item (End() if empty)
    Position Head() const;

    /// \return the position after the last item
    Position End() const;
};

/**
 * \ingroup traffic-control
 *
 * CHOKe, RED or FIFO as Linux's sch_choke / sch_red / pfifo decide, on
 * libchoke. See docs/ns3.md for the attributes and their tc words.
 */
class ChokeQueueDisc : public QueueDisc
{
  public:
    /// The discipline libchoke runs.
    enum Discipline
    {
        CHOKE = CHOKE_KIND_CHOKE, //!< CHOKe (sch_choke), the default
        RED = CHOKE_KIND_RED,     //!< Linux RED in packets (sch_red's decisions)
        FIFO = CHOKE_KIND_FIFO    //!< tail drop at MaxSize only
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    ChokeQueueDisc();
    ~ChokeQueueDisc() override;

    /**
     * Assign a fixed random variable stream number to the random variables
     * used by this model (the draws and RED's random spacing).
     * \param stream first stream index to use
     * \return the number of stream indices assigned (1)
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * The tc words the attributes stand for (`limit 300 bandwidth ...`).
     * \param error receives what is wrong with the attributes, if anything
     * \return the words, or an empty vector with *error set
     */
    std::vector<std::string> GetTcWords(std::string* error) const;

    /**
     * Derive libchoke's configuration from the attributes, exactly as
     * CheckConfig does, without changing the queue disc. Bad attributes
     * (which CheckConfig turns into a fatal error) give false and a message
     * naming the problem.
     * \param params receives the configuration
     * \param error receives the message on failure
     * \return true on success
     */
    bool BuildConfig(struct choke_params* params, std::string* error) const;

    /// \return the configuration in tc's `tc -d qdisc show` words (after initialization)
    std::string GetConfigString() const;

    /// \return libchoke's warnings about the configuration (after initialization)
    const std::vector<std::string>& GetWarnings() const;

    /// \return libchoke's counters (matched, prob_drop, ..., after initialization)
    const struct choke_stats& GetChokeStats() const;

    /// \return the RED average queue, in packets (bytes with MaxSize in bytes)
    double GetAverageQueue() const;

    /// \return the configuration libchoke runs (after initialization)
    const struct choke_config& GetChokeConfig() const;

    /**
     * Walk libchoke's ring and the internal queue and check that they hold
     * the same packets in the same order, and libchoke's own invariants.
     * O(queue length); for tests.
     * \param error receives the first broken invariant
     * \return true if everything holds
     */
    bool CheckInvariants(std::string* error) const;

    /**
     * The flow value libchoke is given for an item without packet filters:
     * the keyed hash of its flow key. For tests that run a bare libchoke
     * beside the queue disc (protect's table places flows by this value).
     * \param item the item
     * \return its flow value
     */
    uint32_t GetFlowValue(Ptr<const QueueDiscItem> item) const;

    /// The key of the flow hash (libchoke's choke_flow_key_hash); a match is
    /// always confirmed by comparing the keys, so it only spreads flows.
    static constexpr uint64_t FLOW_HASH_SEED = 0x43484f4b452d6e73ull;

    // Reasons for dropping and marking packets (QueueDisc::Stats keys)
    static constexpr const char* MATCH_DROP = "Match drop";       //!< same flow as a random queued packet: both dropped
    static constexpr const char* UNFORCED_DROP = "Unforced drop"; //!< RED early drop between the thresholds
    static constexpr const char* FORCED_DROP = "Forced drop";     //!< average above MaxTh
    static constexpr const char* LIMIT_DROP = "Limit drop";       //!< MaxSize reached (tc's pdrop)
    static constexpr const char* PROTECT_DROP = "Protect drop";   //!< Protect: the flow's excess over its fair share
    static constexpr const char* UNFORCED_MARK = "Unforced mark"; //!< RED early mark between the thresholds
    static constexpr const char* FORCED_MARK = "Forced mark";     //!< average above MaxTh, ECN-capable
    static constexpr const char* UNCLASSIFIED_DROP = "Unclassified drop"; //!< no packet filter classified it

  private:
    /// What libchoke stores per queued packet.
    struct Slot
    {
        ChokeInternalQueue::Position pos; //!< where the item is in the internal queue
        struct choke_flow_key key;              //!< its flow (header mode)
        uint32_t next;                    //!< free-list link
    };

    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    Ptr<const QueueDiscItem> DoPeek() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    void DoDispose() override;

    /// \return the current simulation time in nanoseconds
    uint64_t NowNs() const;
    /**
     * Fill in a slot's flow key and return the flow value.
     * \param item the arriving item
     * \param slot its slot
     * \return the flow value for libchoke
     */
    uint32_t FlowOf(Ptr<const QueueDiscItem> item, Slot* slot) const;
    /**
     * The Stats key of a drop outcome of libchoke (CHOKE_DROP_*).
     * \param outcome the outcome
     * \return its reason, e.g. MATCH_DROP
     */
    static const char* DropReason(enum choke_outcome outcome);
    /// \return a free slot
    Slot* AllocSlot();
    /// \param s the slot to free
    void FreeSlot(Slot* s);
    /// \return the link rate for `bandwidth`, in bit/s (0 if unknown)
    uint64_t LinkRate() const;

    /// libchoke's random source: ns-3's stream
    static uint32_t RandomU32(void* ctx);
    /// libchoke's exact flow comparison (header mode)
    static bool SameFlow(void* ctx, const void* queued, const void* arriving);

    // attributes
    Discipline m_discipline;   //!< CHOKE, RED or FIFO
    double m_minTh;            //!< MinTh (0: tc's default)
    double m_maxTh;            //!< MaxTh (0: tc's default)
    double m_qW;               //!< QW (0: derived from Burst as tc does)
    uint32_t m_burst;          //!< Burst (0: tc's default)
    double m_lInterm;          //!< LInterm: the probability at MaxTh is 1/LInterm
    uint32_t m_meanPktSize;    //!< MeanPktSize: tc's avpkt
    DataRate m_linkBandwidth;  //!< LinkBandwidth (0: the device's DataRate)
    bool m_useEcn;             //!< UseEcn
    bool m_useHardDrop;        //!< UseHardDrop
    uint32_t m_draws;          //!< Draws (1: mainline)
    bool m_adaptive;           //!< Adaptive
    uint32_t m_geometric;      //!< Geometric cap (0: off)
    uint32_t m_protect;        //!< Protect table size (0: off)
    bool m_kernelIdleClock;    //!< the kernel's microsecond idle clock

    // state
    Ptr<UniformRandomVariable> m_uv;   //!< random numbers for libchoke
    Ptr<ChokeInternalQueue> m_queue;   //!< the packets, in libchoke's order
    struct choke m_q;                  //!< libchoke's instance
    struct choke_params m_params;      //!< its configuration
    std::vector<struct choke_slot> m_ring; //!< libchoke's ring memory
    std::vector<Slot> m_slots;         //!< one per packet libchoke may hold, plus one
    uint32_t m_freeSlot;               //!< head of the free list
    bool m_useFilters;                 //!< flows from the packet filters
    bool m_initialized;                //!< InitializeParams has run
    std::vector<std::string> m_warnings; //!< libchoke's warnings
};

} // namespace ns3

#endif /* CHOKE_QUEUE_DISC_H */
