// SPDX-License-Identifier: GPL-2.0-only
/*
 * PriceTable: the one table of prices (USD) and power (W) of the network parts the
 * suite prices, read from a JSON file the user can replace.
 *
 * What it models. A list of parts, each a name ("switch", "transceiver",
 * "nic_port", "panel_port", "fiber", ...), an optional link speed (Gbps; absent: the
 * same at every speed) and an optional port count (a switch's radix), with a price
 * per unit, a power per unit, whether the numbers are verified, and where they come
 * from. TopoOpt's CostModel, railonly's RailCostModel and the cross-module scenarios
 * read every price from it; none holds numbers of its own. The shipped defaults are
 * contrib/mlnet/data/prices.json (installed as share/mlnet/mlnet/data/prices.json);
 * the file read is, first that is set: the Path attribute, the environment variable
 * MLNET_PRICE_TABLE, the shipped file (found by DataFile).
 *
 * What it leaves out: currencies other than USD, volume pricing, prices that depend
 * on anything but speed and port count, and parts nobody prices yet (NVLink and
 * NVSwitch: the HB domain is the same in every design compared; a file may list
 * them, and Get returns them, but no model reads them).
 */
#ifndef MLNET_PRICE_TABLE_H
#define MLNET_PRICE_TABLE_H

#include "ns3/json-reader.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Price and power of one part.
 */
struct PriceItem
{
    double priceUsd{0};   //!< price per unit (USD)
    double powerW{0};     //!< power per unit (W)
    bool verified{false}; //!< whether price and power come from a checked source
    std::string source;   //!< where the numbers come from, or why they are estimates
};

/**
 * \brief One entry of the price table: a part at a speed (and radix), and its price.
 */
struct PricedPart
{
    std::string part;  //!< part name, e.g. "switch", "transceiver", "panel_port"
    uint32_t gbps{0};  //!< link speed (Gbps); 0: the same at every speed
    uint32_t ports{0}; //!< ports of the part (a switch's radix); 0: not given
    PriceItem item;    //!< price, power, verified, source
};

/**
 * \brief The suite's one price and power table, read from JSON.
 *
 * File format (see contrib/mlnet/doc/mlnet.md):
 * {"format": "mlnet-prices", "version": 1, "about": "...", "parts": [
 *   {"part": "switch", "gbps": 400, "ports": 64, "price_usd": 30000, "power_w": 750,
 *    "verified": false, "source": "..."}, ...]}
 * part, price_usd and source are required; gbps, ports, power_w (default 0) and
 * verified (default false) are optional.
 */
class PriceTable : public Object
{
public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    /// \brief An empty table; CreateObject loads the one the Path attribute names.
    PriceTable();
    ~PriceTable() override;

    /// Environment variable naming a replacement price table file.
    static constexpr const char* kEnvironment = "MLNET_PRICE_TABLE";
    /**
     * \return the file read when Path is empty: $MLNET_PRICE_TABLE if set, else the
     * shipped contrib/mlnet/data/prices.json (DataFile::Find)
     */
    static std::string DefaultPath();
    /**
     * \brief A table read from a file.
     * \param path the file ("" for DefaultPath())
     * \return the table
     */
    static Ptr<PriceTable> FromFile(const std::string& path);

    /**
     * \brief Replace the whole table by a file's ("" for DefaultPath()).
     * \param path the file
     * Throws std::invalid_argument naming the file, the entry and the fix.
     */
    void Load(const std::string& path);
    /**
     * \brief Replace the whole table by JSON text.
     * \param text the JSON document
     * \param origin what to call it in error messages (a file name)
     */
    void LoadJson(const std::string& text, const std::string& origin = "price table text");
    /**
     * \brief Replace the whole table by a parsed document (its root field); the
     * document's name becomes the origin. LoadJson is the entry point for fuzzing.
     */
    void Read(const JsonField& doc);
    /// \return the file (or origin) the table was read from
    const std::string& GetOrigin() const;

    /**
     * \return whether Get(part, gbps, ports) would find an entry
     * \param part part name
     * \param gbps speed (Gbps); an entry without speed matches any
     * \param ports ports (0: any)
     */
    bool Has(const std::string& part, uint32_t gbps = 0, uint32_t ports = 0) const;
    /**
     * \brief The price of a part: the entry at exactly `gbps`, else the one without
     * speed; with `ports` != 0 only entries of that port count.
     * \param part part name
     * \param gbps speed (Gbps; 0 for a part priced without speed)
     * \param ports ports (0: any, but then only one entry may match)
     * \return the price, power and source
     * Throws std::invalid_argument (naming the file and what to add) when no entry
     * matches, or when several do and `ports` would tell them apart.
     */
    const PriceItem& Get(const std::string& part, uint32_t gbps = 0, uint32_t ports = 0) const;
    /// \return the speeds (Gbps) at which `part` has entries of its own, ascending
    std::vector<uint32_t> Speeds(const std::string& part) const;
    /// \return every entry, in file order
    const std::vector<PricedPart>& GetParts() const;
    /// \return the table in the file format
    std::string ToJson(int indent = 2) const;

private:
    /// Attribute setter: Load(path).
    void SetPath(const std::string& path);
    /// \return the Path attribute
    std::string GetPath() const;
    /// \return the entries of `part` matching `gbps` (exact first, else speed-free) and ports
    std::vector<const PricedPart*> Match(const std::string& part,
                                         uint32_t gbps,
                                         uint32_t ports) const;

    std::string m_path;
    std::string m_origin;
    std::vector<PricedPart> m_parts;
};

} // namespace ns3

#endif // MLNET_PRICE_TABLE_H
