// SPDX-License-Identifier: GPL-2.0-only
/*
 * DcqcnRateControl: the reaction point (sender) of DCQCN, as arithmetic.
 *
 * What it models. The rate state of one DCQCN sender (Zhu et al., "Congestion Control
 * for Large-Scale RDMA Deployments", SIGCOMM 2015, section 3): current rate Rc,
 * target rate Rt, congestion estimate alpha, and the timer and byte-counter stage
 * counts T and BC. The owner (RoceMessageTransport) drives it with events:
 *  - a CNP:                 Rt = Rc, Rc = Rc (1 - alpha/2), alpha = (1 - g) alpha + g,
 *                           T = BC = 0 (both increase counters restart);
 *  - the alpha timer (every AlphaUpdateInterval without a CNP): alpha = (1 - g) alpha;
 *  - the rate-increase timer (T += 1) or ByteCounter bytes sent (BC += 1), each then
 *    one increase step: while max(T, BC) <= F (fast recovery: the first F stages)
 *    only Rc = (Rt + Rc)/2; once min(T, BC) > F (hyper increase) Rt += i * R_HAI with
 *    i = min(T, BC) - F, else (additive increase) Rt += R_AI; then Rc = (Rt + Rc)/2.
 *    (The paper counts from 0 and tests max(T, BC) < F; counting stages from 1, as
 *    here, that is the same F fast-recovery steps.)
 * Rt and Rc never exceed the line rate and Rc never falls below MinRate; an Rc less
 * than 1 bit/s below Rt after an increase is set to Rt (halving never closes the gap). A sender
 * starts at line rate with alpha = InitialAlpha (1: the first CNP halves the rate).
 *
 * It holds no time and no events (the owner schedules the timers), so each step can be
 * checked by hand. Rates are in bit/s.
 */
#ifndef MLNET_DCQCN_RATE_CONTROL_H
#define MLNET_DCQCN_RATE_CONTROL_H

#include <cstdint>

namespace ns3
{

/**
 * \brief DCQCN reaction point: rate decrease on CNP, alpha decay, staged rate increase.
 */
class DcqcnRateControl
{
public:
    /// The constants of the algorithm (RoceMessageTransport's attributes).
    struct Parameters
    {
        double lineRate{100e9};         //!< bit/s: start and ceiling of Rc and Rt
        double minRate{100e6};          //!< bit/s: floor of Rc
        double g{1.0 / 256};            //!< alpha gain
        double initialAlpha{1.0};       //!< alpha of a new sender
        uint32_t fastRecoverySteps{5};  //!< F
        double rateAi{40e6};            //!< bit/s: additive increase of Rt (R_AI)
        double rateHai{400e6};          //!< bit/s: hyper increase step of Rt (R_HAI)
        uint64_t byteCounter{10000000}; //!< bytes sent per byte-counter stage (B)
    };

    /**
     * \brief A sender at line rate. Throws std::invalid_argument for parameters out of
     * range (rates <= 0, minRate > lineRate, g outside (0, 1], alpha outside [0, 1],
     * byteCounter 0).
     */
    explicit DcqcnRateControl(const Parameters& p);

    /// \brief A CNP arrived: cut the rate by alpha/2 and raise alpha.
    void OnCnp();
    /// \brief An AlphaUpdateInterval passed without CNP: alpha decays.
    void OnAlphaTimer();
    /// \brief The rate-increase timer fired: T += 1 and one increase step.
    void OnRateTimer();
    /**
     * \brief `bytes` more were sent; each ByteCounter bytes is a stage (BC += 1) and one
     * increase step. \return the stages completed (usually 0)
     */
    uint32_t OnBytesSent(uint64_t bytes);

    /// \return current rate Rc (bit/s)
    double GetRate() const;
    /// \return target rate Rt (bit/s)
    double GetTargetRate() const;
    /// \return alpha
    double GetAlpha() const;
    /// \return timer stages T since the last CNP
    uint32_t GetTimerStages() const;
    /// \return byte-counter stages BC since the last CNP
    uint32_t GetByteStages() const;
    /// \return true when Rc and Rt are at line rate (nothing left to recover)
    bool IsAtLineRate() const;
    /// \return the parameters
    const Parameters& GetParameters() const;

private:
    /// One rate-increase step after T or BC advanced.
    void Increase();

    Parameters m_p;
    double m_rate;   //!< Rc
    double m_target; //!< Rt
    double m_alpha;
    uint32_t m_timerStages{0};
    uint32_t m_byteStages{0};
    uint64_t m_bytes{0}; //!< bytes sent in the current byte-counter stage
};

} // namespace ns3

#endif // MLNET_DCQCN_RATE_CONTROL_H
