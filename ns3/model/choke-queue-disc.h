/* SPDX-License-Identifier: GPL-2.0-only */
/* SPDX-FileCopyrightText: 2026 The choke authors */
/*
 * ns3::ChokeQueueDisc: CHOKe (Pan, Prabhakar and Psounis, INFOCOM 2000) in
 * ns-3's traffic-control layer, with every decision taken by libchoke, the
 * same core as Linux's sch_choke semantics in this repository
 * (doc/choke.rst, docs/ns3.md).
 *
 * This header needs nothing of libchoke: its state lives behind a pointer
 * (ChokeQueueDisc::Impl, in choke-queue-disc.cc), so a program that uses the
 * queue disc compiles with ns-3's headers alone. Only BuildConfig() names a
 * libchoke type, declared here and defined in <choke/params.h>.
 */
#ifndef CHOKE_QUEUE_DISC_H
#define CHOKE_QUEUE_DISC_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct choke_params; // libchoke's configuration (<choke/params.h>)
struct choke_stats;  // libchoke's counters (<choke/core.h>)

namespace ns3
{

/**
 * @defgroup choke CHOKe queue disc
 *
 * ns3::ChokeQueueDisc runs CHOKe, Linux's RED or a FIFO through libchoke,
 * the core that also runs the `choke` simulator, `choke bridge` and the
 * sch_libchoke kernel module, so a decision in ns-3 is the one Linux's
 * sch_choke (or sch_red) takes for the same packets. Its attributes are
 * ns3::RedQueueDisc's, with RED's defaults, plus CHOKe's variants; gentle
 * RED, wait and adaptive RED are there as opt-in attributes. See
 * doc/choke.rst.
 */

/**
 * @ingroup choke
 * @ingroup traffic-control
 *
 * CHOKe, Linux's RED or FIFO as libchoke decides, with ns-3's clock, random
 * numbers and statistics. Every verdict is reported through QueueDisc's drop
 * and mark functions with one of the reasons below; the average queue and
 * the probability at MaxTh are traced values.
 */
class ChokeQueueDisc : public QueueDisc
{
  public:
    /// The discipline libchoke runs (the values are libchoke's kinds).
    enum Discipline
    {
        CHOKE = 0, //!< CHOKe (sch_choke), the default
        RED = 1,   //!< Linux's RED (sch_red's decisions), not ns-3's RedQueueDisc
        FIFO = 2   //!< tail drop at MaxSize only
    };

    /// libchoke's own counters, since the queue disc was initialized.
    struct ChokeStats
    {
        uint64_t offered = 0;      //!< arrivals offered to libchoke
        uint64_t sent = 0;         //!< packets dequeued for the device
        uint64_t matched = 0;      //!< arrivals dropped by a CHOKe match
        uint64_t matchVictims = 0; //!< queued packets a match dropped
        uint64_t draws = 0;        //!< queued packets drawn for a comparison
        uint64_t probDrop = 0;     //!< RED's early drops (gentle's region included)
        uint64_t probMark = 0;     //!< RED's early marks
        uint64_t forcedDrop = 0;   //!< drops above MaxTh (2 MaxTh with Gentle)
        uint64_t forcedMark = 0;   //!< marks above MaxTh (2 MaxTh with Gentle)
        uint64_t pdrop = 0;        //!< tail drops at MaxSize
        uint64_t protectDrop = 0;  //!< Protect's drops
        uint64_t protectMark = 0;  //!< Protect's marks
    };

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    ChokeQueueDisc();
    ~ChokeQueueDisc() override;

    /**
     * Assign a fixed random variable stream number to the random variables
     * used by this model (the draws and RED's random spacing).
     * @param stream first stream index to use
     * @return the number of stream indices assigned (1)
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * The tc words the attributes stand for (`limit 25 bandwidth ...`),
     * after RED's automatic settings (thresholds, weight) are worked out.
     * @param error receives what is wrong with the attributes, if anything
     * @return the words, or an empty vector with *error set
     */
    std::vector<std::string> GetTcWords(std::string* error) const;

    /**
     * Check the attributes as initialization does, without stopping the
     * simulation: false and a message naming the problem where
     * initialization would abort.
     * @param error receives the message on failure
     * @return true if the attributes make a configuration libchoke runs
     */
    bool CheckAttributes(std::string* error) const;

    /**
     * Derive libchoke's configuration from the attributes, as
     * initialization does, without changing the queue disc. For programs
     * that run libchoke beside the queue disc (the test suite); include
     * <choke/params.h> to use it.
     * @param params receives the configuration
     * @param error receives the message on failure
     * @return true on success
     */
    bool BuildConfig(struct choke_params* params, std::string* error) const;

    /// @return the configuration in tc's `tc -d qdisc show` words (after initialization)
    std::string GetConfigString() const;

    /// @return libchoke's and the queue disc's warnings about the configuration
    const std::vector<std::string>& GetWarnings() const;

    /// @return libchoke's counters (zero before initialization)
    ChokeStats GetChokeStats() const;

    /**
     * libchoke's counters in the form GetChokeStats() reports them, for
     * programs that run libchoke beside the queue disc (the test suite);
     * include <choke/core.h> to use it.
     * @param s libchoke's counters
     * @return the same counters as ChokeStats
     */
    static ChokeStats ToChokeStats(const struct choke_stats* s);

    /// @return the discipline libchoke runs
    Discipline GetDiscipline() const;

    /// @return the RED average queue, in packets (bytes with MaxSize in bytes)
    double GetAverageQueue() const;

    /// @return the probability of a mark at MaxTh (moves with ARED or AdaptMaxP)
    double GetMaxP() const;

    /**
     * Walk libchoke's ring and the internal queue and check that they hold
     * the same packets in the same order, and libchoke's own invariants.
     * O(queue length); for tests.
     * @param error receives the first broken invariant
     * @return true if everything holds
     */
    bool CheckInvariants(std::string* error) const;

    /**
     * The flow value libchoke is given for an item without packet filters:
     * the keyed hash of its flow key (addresses, protocol, ports).
     * @param item the item
     * @return its flow value
     */
    uint32_t GetFlowValue(Ptr<const QueueDiscItem> item) const;

    /// The key of the flow hash (libchoke's choke_flow_key_hash); a match is
    /// always confirmed by comparing the keys, so it only spreads flows.
    static constexpr uint64_t FLOW_HASH_SEED = 0x43484f4b452d6e73ULL;

    // Reasons for dropping and marking packets (QueueDisc::Stats keys); ns-3's
    // own names where ns-3 has the reason (RedQueueDisc's, FqCoDel's)
    static constexpr const char* MATCH_DROP = "Match drop"; //!< same flow as a random queued packet: both dropped
    static constexpr const char* UNFORCED_DROP = "Unforced drop"; //!< RED's early drop (as RedQueueDisc)
    static constexpr const char* FORCED_DROP = "Forced drop"; //!< average above MaxTh (as RedQueueDisc)
    static constexpr const char* LIMIT_DROP = QueueDisc::INTERNAL_QUEUE_DROP; //!< MaxSize reached: "Dropped by internal queue", as RedQueueDisc reports it
    static constexpr const char* PROTECT_DROP = "Protect drop"; //!< Protect: the flow's excess over its share
    static constexpr const char* UNFORCED_MARK = "Unforced mark"; //!< RED's early mark (as RedQueueDisc)
    static constexpr const char* FORCED_MARK = "Forced mark"; //!< average above MaxTh (as RedQueueDisc)
    static constexpr const char* PROTECT_MARK = "Protect mark"; //!< Protect, ECN-capable
    static constexpr const char* UNCLASSIFIED_DROP = "Unclassified drop"; //!< no packet filter classified it (as FqCoDel)

    class Impl; //!< libchoke's state and the queue disc's bookkeeping

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    Ptr<const QueueDiscItem> DoPeek() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    void DoDispose() override;

    /**
     * The resolved settings: RED's automatic values worked out.
     * @param error receives the message on failure
     * @param warnings receives notes about values filled in
     * @param words receives the tc words
     * @param wlog receives the weight's Wlog from QW (0: tc's, from Burst)
     * @return true on success
     */
    bool Resolve(std::string* error,
                 std::vector<std::string>* warnings,
                 std::vector<std::string>* words,
                 int* wlog) const;
    /// @return the link rate for `bandwidth`, bit/s (0: none known)
    uint64_t DeviceRate() const;

    // attributes
    Discipline m_discipline;  //!< CHOKE, RED or FIFO
    double m_minTh;           //!< MinTh (0 with MaxTh 0: automatic)
    double m_maxTh;           //!< MaxTh
    double m_qW;              //!< QW (0, -1, -2: automatic)
    uint32_t m_burst;         //!< Burst (0: the weight from QW)
    double m_lInterm;         //!< LInterm: the probability at MaxTh is 1/LInterm
    uint32_t m_meanPktSize;   //!< MeanPktSize: tc's avpkt
    DataRate m_linkBandwidth; //!< LinkBandwidth (0: the device's DataRate)
    Time m_linkDelay;         //!< LinkDelay (for QW -1)
    Time m_targetDelay;       //!< TargetDelay (ARED's automatic thresholds)
    bool m_useEcn;            //!< UseEcn
    bool m_useHardDrop;       //!< UseHardDrop
    bool m_gentle;            //!< Gentle
    bool m_wait;              //!< Wait
    bool m_ared;              //!< ARED
    bool m_adaptMaxP;         //!< AdaptMaxP
    // RedQueueDisc's ARED knobs, held at the only values libchoke has
    Time m_interval;     //!< Interval (500 ms)
    double m_top;        //!< Top (0.5)
    double m_bottom;     //!< Bottom (0 or 0.01)
    double m_alpha;      //!< Alpha (0.01)
    double m_beta;       //!< Beta (0.9)
    bool m_fengAdaptive; //!< FengAdaptive (false)
    bool m_nlred;        //!< NLRED (false)
    uint32_t m_draws;         //!< Draws (1: mainline)
    bool m_adaptiveDraws;     //!< AdaptiveDraws
    uint32_t m_geometric;     //!< Geometric cap (0: off)
    uint32_t m_protect;       //!< Protect table size (0: off)
    bool m_kernelIdleClock;   //!< the kernel's microsecond idle clock

    TracedValue<double> m_qAvg; //!< RED's average queue after each arrival
    TracedValue<double> m_maxP; //!< the probability at MaxTh after each arrival
    TracedCallback<Ptr<const QueueDiscItem>> m_victimTrace; //!< a match victim, before it leaves

    std::unique_ptr<Impl> m_impl; //!< libchoke and the packets
};

} // namespace ns3

#endif /* CHOKE_QUEUE_DISC_H */
