// SPDX-License-Identifier: GPL-2.0-only
/*
 * CostModel: equipment cost of TopoOpt and of its electrical baselines, per server.
 *
 * What it models. A price table (USD per unit, by link speed 10/25/40/100/200/400
 * Gbps) for a transceiver, a NIC port, an electrical switch port, a patch-panel
 * port and an OCS port, loadable and overridable from JSON. Per server:
 *
 *   TopoOpt      d * (NIC(B) + transceiver(B) + device port)       device: panel or OCS
 *   fat-tree     NIC(s) + (1 + 4/r) * switch(s) + (1 + 2/r) * 2 * transceiver(s)
 *                (3 tiers: host-ToR, ToR-agg, agg-core links; r = ToR oversubscription;
 *                 r = 1 gives the reference's 5 switch ports and 3 links per server,
 *                 a link having a transceiver at each end)
 *   ideal switch d * fat-tree(B, r = 1): non-blocking d*B per server, built the only way
 *                it scales, as a full-bisection Clos of d*B per server
 *
 * The similar-cost solver finds, for TopoOpt's cost per server, the fastest
 * full-bisection fat-tree affordable and the best oversubscribed one (largest
 * per-server bisection bandwidth s/r, with r <= MaxOversubscription).
 *
 * The prices come from mlnet's PriceTable (parts transceiver, nic_port and
 * switch_port by speed, panel_port and ocs_port), the suite's one table: replace the
 * file (MLNET_PRICE_TABLE, ns3::PriceTable::Path) or give a table with
 * SetPriceTable(); LoadJson() overrides single prices of this model only. Every
 * shipped price is an unverified estimate (see doc/topology-finder.md).
 *
 * What it leaves out: fibre, racks, power, labour, switch chassis granularity
 * (ports are priced one by one) and volume discounts.
 */
#ifndef TOPOOPT_COST_MODEL_H
#define TOPOOPT_COST_MODEL_H

#include "ns3/json-reader.h"
#include "ns3/object.h"
#include "ns3/price-table.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Prices (USD per unit) of the parts at one link speed.
 */
struct PriceEntry
{
    double transceiver{0}; //!< one optical transceiver (one end of a link)
    double nicPort{0};     //!< one NIC port
    double switchPort{0};  //!< one electrical switch port
    double panelPort{0};   //!< one patch-panel port
    double ocsPort{0};     //!< one optical circuit switch port
};

/**
 * \brief Optical device behind each TopoOpt plane.
 */
enum class OpticalDevice
{
    PATCH_PANEL, //!< robotic patch panel (reconfigured per job)
    OCS          //!< optical circuit switch
};

/**
 * \brief Fat-tree affordable at a given cost per server.
 */
struct SimilarCostFatTree
{
    double budgetPerServer{0};        //!< the cost to match (USD per server)
    uint32_t fullBisectionGbps{0};    //!< fastest host speed affordable at r = 1 (0: none)
    double fullBisectionCost{0};      //!< its cost per server (USD)
    uint32_t gbps{0};                 //!< host speed of the best option (0: none affordable)
    double oversubscription{1};       //!< ToR oversubscription r of the best option (>= 1)
    double bandwidthPerServerGbps{0}; //!< its bisection bandwidth per server, gbps / r
    double costPerServer{0};          //!< its cost per server (USD)
};

/**
 * \brief Price table and per-server cost of TopoOpt, fat-tree and ideal switch.
 */
class CostModel : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    /// \brief A model priced from the default PriceTable.
    CostModel();

    /// \brief The prices of the default PriceTable (speed in Gbps -> prices).
    static std::map<uint32_t, PriceEntry> DefaultPrices();
    /**
     * \brief The prices a table gives: every speed at which it has a transceiver,
     * NIC port and switch port, with its panel and OCS port (at that speed, or the
     * speed-free entry). Throws std::invalid_argument when a speed lacks one of the
     * five parts or no speed has them all.
     */
    static std::map<uint32_t, PriceEntry> PricesFrom(const PriceTable& table);
    /// \brief Take every price from `table` (replaces earlier LoadJson overrides).
    void SetPriceTable(Ptr<const PriceTable> table);
    /**
     * \brief Override prices from JSON: {"100": {"transceiver": 99, ...}, ...}, or the
     * same under a top-level "prices" key. Listed fields replace the current ones;
     * a new speed must list all five. Throws std::invalid_argument on bad input.
     * A whole PriceTable document ({"parts": [...]}) replaces every price instead
     * (SetPriceTable).
     */
    void LoadJson(const std::string& text, const std::string& name = "price text");
    /// \brief LoadJson() from a file.
    void LoadFile(const std::string& path);
    /// \brief LoadJson() from a parsed document (its root field).
    void Read(const JsonField& doc);
    /// \brief The current table as JSON ({"prices": {...}}).
    std::string ToJson(int indent = 2) const;

    /// \brief Speeds in the table (Gbps), ascending.
    std::vector<uint32_t> Speeds() const;
    /// \brief Prices at a speed (throws std::invalid_argument for a speed not in the table).
    const PriceEntry& GetPrices(uint32_t gbps) const;

    /// \brief TopoOpt: d * (NIC + transceiver + device port) per server (USD).
    double TopoOptCostPerServer(uint32_t degree,
                                uint32_t gbps,
                                OpticalDevice device = OpticalDevice::PATCH_PANEL) const;
    /// \brief 3-tier fat-tree per server at host speed `gbps` and ToR oversubscription r.
    double FatTreeCostPerServer(uint32_t gbps, double oversubscription = 1.0) const;
    /// \brief Ideal (non-blocking) switch at d*B per server: d * FatTreeCostPerServer(B, 1).
    double IdealSwitchCostPerServer(uint32_t degree, uint32_t gbps) const;
    /// \brief The fat-tree affordable at `budgetPerServer` (see the file comment).
    SimilarCostFatTree SimilarCost(double budgetPerServer) const;

private:
    std::map<uint32_t, PriceEntry> m_prices;
    double m_maxOversubscription;
};

} // namespace ns3

#endif // TOPOOPT_COST_MODEL_H
