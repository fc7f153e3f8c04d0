// SPDX-License-Identifier: GPL-2.0-only
/*
 * The small LLM run the rail tests share: 8 HB domains of 4 GPUs, TP 4, PP 2, DP 4, at
 * the flow level over udp (each rail one switch of 8 GPUs on rail-only).
 */
#ifndef RAILONLY_SMALL_LLM_OPTIONS_H
#define RAILONLY_SMALL_LLM_OPTIONS_H

#include "ns3/llm-training-runner.h"

namespace railtest
{

/// \return the options of the small run (a fraction of a second at flow level)
inline ns3::LlmRunOptions
SmallOptions()
{
    ns3::LlmRunOptions o;
    o.domains = 8;
    o.domainSize = 4;
    o.model.layers = 2;
    o.model.hidden = 256;
    o.model.seqLength = 128;
    o.model.microBatches = 2;
    o.model.vocab = 1024;
    o.model.tp = 4;
    o.model.pp = 2;
    o.model.dp = 4;
    o.transport = "udp";
    o.level = ns3::RunLevel::FLOW;
    return o;
}

} // namespace railtest

#endif // RAILONLY_SMALL_LLM_OPTIONS_H
