#!/usr/bin/env python3
"""Generate the TopoOpt model profiles (workloads/models/*.json).

Every number is derived here from layer shapes of the published architectures
(see contrib/topoopt/doc/profiles.md); nothing is measured on a GPU.

Assumptions (stated, not measured):
  * one server = 4 GPUs run as one "big GPU" (the reference's model); per-layer
    times are those of one GPU on its per-GPU batch (the 4 GPUs work in parallel),
    activation bytes are for the server's whole batch (4 x per-GPU batch);
  * dense compute at an effective 100 TFLOP/s per GPU (an A100's fp16 tensor-core
    peak is 312 TFLOP/s; 1/3 of peak is a typical achieved rate), backward = 2 x
    forward FLOPs;
  * embedding lookups are memory-bound at an effective 1 TB/s (A100 HBM2e: 1.5-2
    TB/s peak); their backward (sparse scatter) costs the same bytes;
  * parameters and gradients are fp32 (4 bytes), as FlexFlow trains;
  * every layer costs at least 1 us (kernel launch).

Run: /usr/bin/python3 workloads/models/make-profiles.py  (rewrites the JSON files)
"""
import json
import os

FLOPS = 100e12  # effective dense FLOP/s per GPU
MEMBW = 1e12  # effective embedding-lookup bytes/s per GPU
GPUS = 4  # GPUs per server
FP = 4  # bytes per parameter / activation element
HERE = os.path.dirname(os.path.abspath(__file__))


def us(seconds):
    return round(max(seconds * 1e6, 1.0), 3)


def dense(name, fin, fout, batch, bias=True):
    params = fin * fout + (fout if bias else 0)
    flops = 2.0 * fin * fout * batch
    return {"name": name, "forward_us": us(flops / FLOPS), "backward_us": us(2 * flops / FLOPS),
            "param_bytes": params * FP}


def embedding(name, rows, dim, batch, bag=1):
    read = batch * bag * dim * FP  # bytes gathered per GPU batch
    return {"name": name, "forward_us": us(read / MEMBW), "backward_us": us(read / MEMBW),
            "param_bytes": rows * dim * FP, "embedding": True,
            "activation_bytes": GPUS * batch * dim * FP}


def conv(name, cin, cout, k, hw_out, batch):
    params = cin * cout * k * k + cout
    flops = 2.0 * cin * cout * k * k * hw_out * hw_out * batch
    return {"name": name, "forward_us": us(flops / FLOPS), "backward_us": us(2 * flops / FLOPS),
            "param_bytes": params * FP}


def dlrm():
    b = 128
    layers = [embedding("emb%d" % i, 10_000_000, 128, b, bag=100) for i in range(64)]
    fin = 13  # Criteo dense features
    for i in range(8):
        layers.append(dense("bot%d" % i, fin, 2048, b))
        fin = 2048
    fin = 64 * 128 + 2048  # "cat" interaction of 64 pooled embeddings and the bottom MLP
    for i in range(16):
        layers.append(dense("top%d" % i, fin, 4096, b))
        fin = 4096
    layers.append(dense("top16", 4096, 1, b))
    return ("dlrm", b, "DLRM as in the TopoOpt scripts: 64 tables x 10M rows x 128, bag 100; "
            "bottom MLP 8 x 2048, top MLP 16 x 4096 + 1; cat interaction", layers)


def bert():
    b, seq, h, ffn, vocab, nl = 16, 512, 1024, 4096, 30522, 24
    tokens = b * seq
    layers = [embedding("word_emb", vocab, h, tokens)]
    layers[0]["activation_bytes"] = GPUS * tokens * h * FP
    pos = dense("pos_type_emb", 1, (512 + 2) * h, 0, bias=False)
    pos.update({"forward_us": 1.0, "backward_us": 1.0})
    layers.append(pos)
    for i in range(nl):
        params = 4 * h * h + 4 * h + 2 * h * ffn + ffn + h + 4 * h  # attn, FFN, 2 LayerNorms
        flops = 2.0 * (4 * h * h + 2 * h * ffn) * tokens + 4.0 * seq * seq * h * b
        layers.append({"name": "enc%d" % i, "forward_us": us(flops / FLOPS),
                       "backward_us": us(2 * flops / FLOPS), "param_bytes": params * FP})
    head = dense("mlm_head", h, h, tokens)
    flops = 2.0 * h * vocab * tokens  # decoder tied to word_emb: FLOPs, no own params
    head["forward_us"] = us((2.0 * h * h * tokens + flops) / FLOPS)
    head["backward_us"] = 2 * head["forward_us"]
    layers.append(head)
    return ("bert", b, "BERT-large: 24 layers, hidden 1024, FFN 4096, 16 heads, sequence 512, "
            "vocabulary 30522 (MLM decoder tied to the word embedding)", layers)


def candle_uno():
    b = 256
    layers = []
    towers = {"rnaseq": 942, "descriptors": 5270, "fingerprints": 2048}
    for t, fin in towers.items():
        for i in range(3):
            layers.append(dense("%s%d" % (t, i), fin, 1000, b))
            fin = 1000
    fin = 3 * 1000 + 1  # towers + dose
    for i in range(5):
        layers.append(dense("dense%d" % i, fin, 1000, b))
        fin = 1000
    layers.append(dense("out", 1000, 1, b))
    return ("candle-uno", b, "CANDLE Uno (Pilot1 defaults): feature towers 3 x 1000 for gene "
            "expression (942), drug descriptors (5270) and fingerprints (2048), dense 5 x 1000, "
            "one regression output", layers)


def vgg16():
    b = 64
    cfg = [(3, 64, 224), (64, 64, 224), (64, 128, 112), (128, 128, 112), (128, 256, 56),
           (256, 256, 56), (256, 256, 56), (256, 512, 28), (512, 512, 28), (512, 512, 28),
           (512, 512, 14), (512, 512, 14), (512, 512, 14)]
    layers = [conv("conv%d" % i, cin, cout, 3, hw, b) for i, (cin, cout, hw) in enumerate(cfg)]
    layers += [dense("fc6", 25088, 4096, b), dense("fc7", 4096, 4096, b),
               dense("fc8", 4096, 1000, b)]
    return ("vgg16", b, "VGG16 (Simonyan & Zisserman, configuration D), ImageNet 224 x 224", layers)


def resnet50():
    b = 128
    layers = [conv("conv1", 3, 64, 7, 112, b)]
    cin, hw = 64, 56
    for stage, (blocks, width) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)]):
        for k in range(blocks):
            out = 4 * width
            if k == 0 and stage > 0:
                hw //= 2
            parts = [conv("x", cin, width, 1, hw, b), conv("x", width, width, 3, hw, b),
                     conv("x", width, out, 1, hw, b)]
            if k == 0:
                parts.append(conv("x", cin, out, 1, hw, b))  # projection shortcut
            layers.append({"name": "res%d_%d" % (stage + 2, k),
                           "forward_us": round(sum(p["forward_us"] for p in parts), 3),
                           "backward_us": round(sum(p["backward_us"] for p in parts), 3),
                           "param_bytes": sum(p["param_bytes"] for p in parts)})
            cin = out
    layers.append(dense("fc", 2048, 1000, b))
    return ("resnet50", b, "ResNet-50 v1 (He et al.), ImageNet 224 x 224, bottleneck blocks "
            "3-4-6-3 (BatchNorm parameters left out)", layers)


def ncf():
    b = 128
    users, items = 138493, 26744  # MovieLens-20M, as MLPerf NCF
    layers = [embedding("mf_user", users, 64, b), embedding("mf_item", items, 64, b),
              embedding("mlp_user", users, 128, b), embedding("mlp_item", items, 128, b)]
    fin = 256
    for i, w in enumerate([256, 128, 64]):
        layers.append(dense("mlp%d" % i, fin, w, b))
        fin = w
    layers.append(dense("out", 64 + 64, 1, b))
    return ("ncf", b, "NCF / NeuMF (He et al.; MLPerf configuration): MovieLens-20M, GMF "
            "factors 64, MLP 256-256-128-64", layers)


for make in [dlrm, bert, candle_uno, vgg16, resnet50, ncf]:
    name, batch, desc, layers = make()
    doc = {"format": "topoopt-profile", "version": 1, "name": name, "description": desc,
           "batch_per_gpu": batch, "gpus_per_server": GPUS,
           "assumptions": "derived by make-profiles.py from layer shapes: 100 TFLOP/s dense, "
                          "1 TB/s embedding lookups, fp32 parameters; not measured",
           "layers": layers}
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    total = sum(l["param_bytes"] for l in layers)
    dp = sum(l["param_bytes"] for l in layers if not l.get("embedding"))
    comp = sum(l["forward_us"] + l["backward_us"] for l in layers if not l.get("embedding"))
    print("%-10s layers %3d  params %.3g B (dense %.3g B)  dense compute %.1f ms" %
          (name, len(layers), total, dp, comp / 1e3))
