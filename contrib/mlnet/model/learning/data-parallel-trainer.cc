// SPDX-License-Identifier: GPL-2.0-only
#include "data-parallel-trainer.h"

#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-names.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MlnetDataParallelTrainer");
NS_OBJECT_ENSURE_REGISTERED(DataParallelTrainer);

TypeId
DataParallelTrainer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DataParallelTrainer")
            .SetParent<Object>()
            .SetGroupName("Mlnet")
            .AddConstructor<DataParallelTrainer>()
            .AddAttribute("ComputeTime",
                          "Forward + backward time of one iteration on one worker's GPU (s); "
                          "the all-reduce starts when it ends.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&DataParallelTrainer::m_computeTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("BatchSize",
                          "Samples per worker per iteration (count).",
                          UintegerValue(32),
                          MakeUintegerAccessor(&DataParallelTrainer::m_batch),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("InitStream",
                          "ns-3 random-variable stream of the initial parameters.",
                          IntegerValue(500),
                          MakeIntegerAccessor(&DataParallelTrainer::m_initStream),
                          MakeIntegerChecker<int64_t>(0))
            .AddAttribute("KeepGradients",
                          "Reduced gradients of this many recent iterations stay available "
                          "to GetReducedGradient (count, >= 1).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&DataParallelTrainer::m_keep),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("IterationDone",
                            "An iteration finished: iteration, loss, accuracy, iteration time.",
                            MakeTraceSourceAccessor(&DataParallelTrainer::m_iterationTrace),
                            "ns3::DataParallelTrainer::IterationTracedCallback")
            .AddTraceSource("Failure",
                            "A worker failed at the end of this iteration's compute.",
                            MakeTraceSourceAccessor(&DataParallelTrainer::m_failureTrace),
                            "ns3::DataParallelTrainer::FailureTracedCallback");
    return tid;
}

DataParallelTrainer::DataParallelTrainer() = default;
DataParallelTrainer::~DataParallelTrainer() = default;

void
DataParallelTrainer::DoDispose()
{
    if (m_exchange)
    {
        m_exchange->Dispose();
        m_exchange = nullptr;
    }
    m_transport = nullptr;
    m_model = nullptr;
    m_data = nullptr;
    m_opts.clear();
    m_collectiveHook = CollectiveHook();
    m_pauseHook = PauseHook();
    m_stopCb = StopCallback();
    m_startHook = Callback<void, uint32_t>();
    Object::DoDispose();
}

void
DataParallelTrainer::Setup(Ptr<MessageTransport> transport,
                           const std::vector<uint32_t>& workers,
                           Ptr<RealModel> model,
                           Ptr<SyntheticDataset> data,
                           const ObjectFactory& optimizer)
{
    NS_ASSERT_MSG(transport && model && data, "null argument");
    if (workers.size() < 2)
    {
        throw std::invalid_argument("data-parallel training needs at least 2 workers, got " +
                                    std::to_string(workers.size()));
    }
    model->Validate();
    if (data->GetSamples() < workers.size())
    {
        throw std::invalid_argument("the data set has fewer samples than workers; raise Samples");
    }
    m_transport = transport;
    TraceNames::Register(this, "Trainer");
    m_workers = workers;
    m_model = model;
    m_data = data;
    m_optFactory = optimizer;
    m_data->Generate(model->GetInputs(), model->GetClasses());
    Eigen::VectorXf init = model->InitialParameters(m_initStream);
    m_params.assign(workers.size(), init);
    m_opts.clear();
    for (size_t w = 0; w < workers.size(); ++w)
    {
        Ptr<Optimizer> o = m_optFactory.Create<Optimizer>();
        if (!o)
        {
            throw std::invalid_argument("the optimizer factory does not make an ns3::Optimizer");
        }
        o->Initialize(model->GetParameterCount());
        m_opts.push_back(o);
    }
}

void
DataParallelTrainer::Run(uint32_t first, uint32_t last)
{
    NS_ASSERT_MSG(m_model, "call Setup first");
    if (last <= first)
    {
        throw std::invalid_argument("nothing to run: iterations [" + std::to_string(first) + ", " +
                                    std::to_string(last) + ") is empty");
    }
    m_last = last;
    m_running = true;
    Simulator::ScheduleNow(&DataParallelTrainer::StartIteration, this, first);
}

void
DataParallelTrainer::SetFailure(uint32_t iteration)
{
    m_failArmed = true;
    m_failAt = iteration;
}

void
DataParallelTrainer::SetCollectiveHook(CollectiveHook hook)
{
    m_collectiveHook = hook;
}

void
DataParallelTrainer::SetPauseHook(PauseHook hook)
{
    m_pauseHook = hook;
}

void
DataParallelTrainer::SetIterationStartHook(Callback<void, uint32_t> hook)
{
    m_startHook = hook;
}

void
DataParallelTrainer::SetStopCallback(StopCallback cb)
{
    m_stopCb = cb;
}

void
DataParallelTrainer::StartIteration(uint32_t i)
{
    m_current = TrainerIterationRecord();
    m_current.iteration = i;
    m_current.start = Simulator::Now();
    uint32_t n = static_cast<uint32_t>(m_workers.size());
    m_grads.assign(n, Eigen::VectorXf());
    double loss = 0;
    Eigen::MatrixXf x;
    std::vector<uint32_t> y;
    for (uint32_t w = 0; w < n; ++w)
    {
        m_data->GetBatch(w, n, i, m_batch, x, y);
        double l = 0;
        m_grads[w] = m_model->Gradient(m_params[w], x, y, &l);
        loss += l;
    }
    m_current.loss = loss / n;
    if (!m_startHook.IsNull())
    {
        m_startHook(i);
    }
    Simulator::Schedule(m_computeTime, &DataParallelTrainer::ComputeDone, this, i);
}

Eigen::VectorXf
DataParallelTrainer::GetExchangeOutput(Ptr<Collective> exchange, uint32_t worker) const
{
    return exchange->GetOutput(worker);
}

Ptr<Collective>
DataParallelTrainer::CreateExchange(uint32_t /* iteration */,
                                    const std::vector<Eigen::VectorXf>& grads)
{
    Ptr<RingAllReduce> ar = CreateObject<RingAllReduce>();
    ar->Setup(m_transport, m_workers, GetGradientBytes());
    for (uint32_t w = 0; w < grads.size(); ++w)
    {
        ar->SetInput(w, grads[w]);
    }
    return ar;
}

void
DataParallelTrainer::ComputeDone(uint32_t i)
{
    m_current.computeEnd = Simulator::Now();
    if (m_failArmed && i == m_failAt)
    {
        NS_LOG_INFO("worker failure at iteration " << i);
        m_failArmed = false;
        m_running = false;
        m_grads.clear();
        m_failureTrace(i);
        if (!m_stopCb.IsNull())
        {
            m_stopCb(i, true);
        }
        return;
    }
    if (m_exchange)
    {
        m_exchange->Dispose(); // the previous iteration's, long finished
    }
    m_exchange = CreateExchange(i, m_grads);
    m_grads.clear();
    if (!m_collectiveHook.IsNull())
    {
        m_collectiveHook(i, m_exchange);
    }
    m_exchange->SetDoneCallback(MakeCallback(&DataParallelTrainer::ReduceDone, this).Bind(i));
    m_exchange->Start();
}

Eigen::VectorXf
DataParallelTrainer::Average(const Eigen::VectorXf& sum, uint32_t workers)
{
    return sum / static_cast<float>(workers);
}

void
DataParallelTrainer::ReduceDone(uint32_t i, Ptr<Collective> c)
{
    uint32_t n = static_cast<uint32_t>(m_workers.size());
    Eigen::VectorXf sum0 = GetExchangeOutput(c, 0);
    for (uint32_t w = 0; w < n; ++w)
    {
        Eigen::VectorXf g = Average(w == 0 ? sum0 : GetExchangeOutput(c, w), n);
        m_opts[w]->Step(m_params[w], g);
    }
    m_reduced[i] = std::move(sum0);
    while (m_reduced.size() > m_keep)
    {
        m_reduced.erase(m_reduced.begin());
    }
    m_current.reduceEnd = Simulator::Now();
    m_current.accuracy = m_model->Accuracy(m_params[0], m_data->GetEvalX(), m_data->GetEvalY());
    Time pause = m_pauseHook.IsNull() ? Time(0) : m_pauseHook(i);
    Simulator::Schedule(pause, &DataParallelTrainer::NextIteration, this, i);
}

void
DataParallelTrainer::NextIteration(uint32_t i)
{
    m_current.end = Simulator::Now();
    m_records.push_back(m_current);
    m_iterationTrace(i, m_current.loss, m_current.accuracy, m_current.end - m_current.start);
    if (i + 1 < m_last)
    {
        StartIteration(i + 1);
        return;
    }
    m_running = false;
    if (!m_stopCb.IsNull())
    {
        m_stopCb(i + 1, false);
    }
}

void
DataParallelTrainer::Restore(const Eigen::VectorXf& params,
                             uint64_t step,
                             const std::vector<Eigen::VectorXf>& state)
{
    NS_ASSERT_MSG(m_model, "call Setup first");
    if (static_cast<uint64_t>(params.size()) != m_model->GetParameterCount())
    {
        throw std::invalid_argument("checkpoint has " + std::to_string(params.size()) +
                                    " parameters, the model " +
                                    std::to_string(m_model->GetParameterCount()));
    }
    for (size_t w = 0; w < m_workers.size(); ++w)
    {
        m_params[w] = params;
        m_opts[w]->SetState(step, state);
    }
    m_reduced.clear(); // gradients of iterations after the checkpoint are void
}

const Eigen::VectorXf&
DataParallelTrainer::GetParameters(uint32_t worker) const
{
    NS_ASSERT(worker < m_params.size());
    return m_params[worker];
}

Ptr<Optimizer>
DataParallelTrainer::GetOptimizer(uint32_t worker) const
{
    NS_ASSERT(worker < m_opts.size());
    return m_opts[worker];
}

const Eigen::VectorXf*
DataParallelTrainer::GetReducedGradient(uint32_t iteration) const
{
    auto it = m_reduced.find(iteration);
    return it == m_reduced.end() ? nullptr : &it->second;
}

const std::vector<TrainerIterationRecord>&
DataParallelTrainer::GetRecords() const
{
    return m_records;
}

const std::vector<uint32_t>&
DataParallelTrainer::GetWorkers() const
{
    return m_workers;
}

Ptr<RealModel>
DataParallelTrainer::GetModel() const
{
    return m_model;
}

Ptr<MessageTransport>
DataParallelTrainer::GetTransport() const
{
    return m_transport;
}

const ObjectFactory&
DataParallelTrainer::GetOptimizerFactory() const
{
    return m_optFactory;
}

uint64_t
DataParallelTrainer::GetGradientBytes() const
{
    return 4 * m_model->GetParameterCount();
}

bool
DataParallelTrainer::IsRunning() const
{
    return m_running;
}

} // namespace ns3
