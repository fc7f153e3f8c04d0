// SPDX-License-Identifier: GPL-2.0-only
/*
 * RailCostModel: switch, link and transceiver counts, equipment cost and power of
 * rail-only and rail-optimized GPU fabrics.
 *
 * What it models. A full-bisection folded Clos of radix k over N endpoints:
 *   1 tier  (N <= k):       1 switch,                                    N links
 *   2 tiers (N <= k^2/2):   ceil(2N/k) leaves + ceil(N/k) spines,        2N links
 *   3 tiers (N <= k^3/4):   ceil(2N/k) leaves + ceil(2N/k) aggs
 *                           + ceil(N/k) cores,                            3N links
 * (N/k, 3N/k, 5N/k switches and 1, 2, 3 links per endpoint when k/2 divides N).
 * The rail-optimized baseline is one Clos of the N GPUs (tier count from N); a
 * rail-only fabric is K independent Clos rails of N/K GPUs each (tier count from
 * N/K). Every link is optical: one NIC-side transceiver per GPU link, one
 * switch-side transceiver port at every other link end (2 per link in all).
 * Cost = sum of count x price, power = sum of count x watts, over switches,
 * transceivers, fibres (and NICs if IncludeNics). Prices and power come from
 * mlnet's PriceTable, the suite's one table (parts switch, switch_transceiver,
 * nic_transceiver and nic at 400 Gbps, fiber): replace the file
 * (MLNET_PRICE_TABLE, ns3::PriceTable::Path) or give a table with SetPriceTable();
 * LoadJson() overrides single items of this model only. Every entry says whether
 * it is verified and where it comes from. The switch price is per switch, whatever
 * the Radix.
 *
 * What it leaves out: the HB domain (NVLink/NVSwitch is the same in both designs),
 * cables other than one fibre per link, racks, cooling, labour, volume pricing,
 * oversubscription, and four or more tiers (N > k^3/4 throws).
 */
#ifndef RAILONLY_RAIL_COST_MODEL_H
#define RAILONLY_RAIL_COST_MODEL_H

#include "ns3/object.h"
#include "ns3/price-table.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Switch and link counts of one full-bisection folded Clos.
 */
struct ClosCount
{
    uint64_t endpoints{0};                //!< N
    uint32_t radix{0};                    //!< k
    uint32_t tiers{0};                    //!< 1, 2 or 3
    std::vector<uint64_t> switchesByTier; //!< tier 0 = leaves (the switches endpoints attach to)
    uint64_t switches{0};                 //!< total switches
    uint64_t links{0};                    //!< endpoint links + switch-switch links
};

/**
 * \brief Counts, cost and power of one design at one size.
 */
struct DesignCost
{
    std::string design;                   //!< "rail-only" or "rail-optimized"
    uint64_t gpus{0};                     //!< N
    uint32_t hbDomain{0};                 //!< K
    uint32_t radix{0};                    //!< k
    uint32_t tiers{0};                    //!< tiers of the Clos (of one rail, for rail-only)
    uint64_t switches{0};                 //!< all switches
    std::vector<uint64_t> switchesByTier; //!< summed over rails, tier 0 = leaves
    uint64_t links{0};                    //!< optical links
    uint64_t nicTransceivers{0};          //!< NIC-side transceivers (one per GPU)
    uint64_t switchTransceivers{0};       //!< switch-side transceiver ports
    uint64_t transceivers{0};             //!< both kinds
    double cost{0};                       //!< USD
    double powerW{0};                     //!< W
};

/**
 * \brief Rail-only against rail-optimized at one (N, K).
 */
struct CostComparison
{
    DesignCost railOnly;      //!< the rail-only design
    DesignCost railOptimized; //!< the baseline
    double costReduction{0};  //!< 1 - cost(rail-only) / cost(rail-optimized)
    double powerReduction{0}; //!< 1 - power(rail-only) / power(rail-optimized)
};

/**
 * \brief Cost and power of rail-only and rail-optimized fabrics from a price table.
 */
class RailCostModel : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// \brief A model priced from the default PriceTable.
    RailCostModel();
    ~RailCostModel() override;

    /// Link speed of the priced parts (Gbps): the fabric is 400G.
    static constexpr uint32_t kLinkGbps = 400;
    /**
     * \brief Take every item from `table`: switch (the one of Radix ports if the table
     * has several), switch_transceiver, nic_transceiver and nic at kLinkGbps, and
     * fiber. Replaces earlier LoadJson overrides; throws std::invalid_argument (naming
     * the file and the entry to add) when a part is missing.
     */
    void SetPriceTable(Ptr<const PriceTable> table);

    /**
     * \brief Counts of a full-bisection folded Clos.
     * \param endpoints N >= 1
     * \param radix k >= 2 (even when N > k)
     * Throws std::invalid_argument for N = 0, a bad radix, or N > k^3/4.
     */
    static ClosCount Clos(uint64_t endpoints, uint32_t radix);

    /// \return the rail-optimized baseline: one Clos of N GPUs
    DesignCost RailOptimized(uint64_t gpus, uint32_t hbDomain) const;
    /// \return rail-only: K Clos rails of N/K GPUs (K must divide N)
    DesignCost RailOnly(uint64_t gpus, uint32_t hbDomain) const;
    /// \return both designs and the reductions
    CostComparison Compare(uint64_t gpus, uint32_t hbDomain) const;
    /**
     * \brief Compare over every (N, K) pair of the lists; pairs where K does not divide N
     * or N needs more than 3 tiers are skipped.
     */
    std::vector<CostComparison> Sweep(const std::vector<uint64_t>& gpus,
                                      const std::vector<uint32_t>& hbDomains) const;

    /// \brief Set the switch radix (ports per switch).
    void SetRadix(uint32_t radix);
    /// \return the radix
    uint32_t GetRadix() const;
    /// \return the table: "switch", "nic_transceiver", "switch_transceiver", "fiber", "nic"
    const std::map<std::string, PriceItem>& GetTable() const;
    /// \brief Replace one item of the table (name as in GetTable; throws on unknown names).
    void SetItem(const std::string& name, const PriceItem& item);

    /**
     * \brief Override table entries from JSON text:
     * {"switch": {"price_usd": .., "power_w": .., "ports": 64, "verified": false,
     *  "source": ".."}, "nic_transceiver": {...}, ..., "include_nics": false}.
     * Keys not given keep their values; unknown keys throw std::invalid_argument.
     * A whole PriceTable document ({"parts": [...]}) replaces the table instead
     * (SetPriceTable). Errors read "<name>: <field>: expected ..., got ...".
     */
    void LoadJson(const std::string& text, const std::string& name = "price table text");
    /// \brief LoadJson from a file (every message names the file).
    void LoadJsonFile(const std::string& path);
    /**
     * \brief LoadJson from a parsed document (its root field). Either form is checked
     * completely before anything changes. LoadJson is the entry point for fuzzing.
     */
    void Read(const JsonField& doc);
    /// \return the table (and radix, include_nics) as JSON text
    std::string GetTableJson() const;
    /**
     * \return rows as JSON text: {"rows":[{"gpus","hb_domain","design","tiers","switches",
     * "links","transceivers","cost","power_w","cost_reduction","power_reduction"}, ...]}
     */
    static std::string RowsToJson(const std::vector<CostComparison>& rows);

private:
    DesignCost Price(DesignCost d) const;

    uint32_t m_radix{64};
    bool m_includeNics{false};
    std::map<std::string, PriceItem> m_table;
    /// Fires for every design evaluated.
    TracedCallback<const DesignCost&> m_evaluatedTrace;
};

} // namespace ns3

#endif // RAILONLY_RAIL_COST_MODEL_H
