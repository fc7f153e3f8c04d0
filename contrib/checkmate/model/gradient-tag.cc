// SPDX-License-Identifier: GPL-2.0-only
#include "gradient-tag.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CheckmateGradientTag");
NS_OBJECT_ENSURE_REGISTERED(GradientTag);

TypeId
GradientTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::GradientTag")
                            .SetParent<Tag>()
                            .SetGroupName("Checkmate")
                            .AddConstructor<GradientTag>();
    return tid;
}

TypeId
GradientTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
GradientTag::GetSerializedSize() const
{
    return 4 * 4 + 1 + 4 + 4 + 8 + 4;
}

void
GradientTag::Serialize(TagBuffer i) const
{
    i.WriteU32(job);
    i.WriteU32(iteration);
    i.WriteU32(bucket);
    i.WriteU32(ring);
    i.WriteU8(phase);
    i.WriteU32(step);
    i.WriteU32(chunk);
    i.WriteU64(offset);
    i.WriteU32(length);
}

void
GradientTag::Deserialize(TagBuffer i)
{
    job = i.ReadU32();
    iteration = i.ReadU32();
    bucket = i.ReadU32();
    ring = i.ReadU32();
    phase = i.ReadU8();
    step = i.ReadU32();
    chunk = i.ReadU32();
    offset = i.ReadU64();
    length = i.ReadU32();
}

void
GradientTag::Print(std::ostream& os) const
{
    os << "job=" << job << " it=" << iteration << " bucket=" << bucket << " ring=" << ring
       << " phase=" << (phase == ALL_GATHER ? "AG" : "RS") << " step=" << step << " chunk=" << chunk
       << " offset=" << offset << " len=" << length;
}

GradientTag
GradientTag::ForRingAllReduce(uint32_t job,
                              uint32_t iteration,
                              uint32_t members,
                              uint64_t chunkBytes,
                              const StepwiseCollective::PacketInfo& info)
{
    GradientTag tag;
    tag.job = job;
    tag.iteration = iteration;
    tag.bucket = 0;
    tag.ring = info.chain;
    const bool gather = info.step >= members - 1;
    tag.phase = gather ? ALL_GATHER : REDUCE_SCATTER;
    tag.step = gather ? info.step - (members - 1) : info.step;
    tag.offset = info.seg.offset * info.unit + info.byteOffset;
    tag.length = info.length;
    tag.chunk = static_cast<uint32_t>(info.seg.offset * info.unit / chunkBytes);
    return tag;
}

} // namespace ns3
