"""Three image classifiers of different shapes, as plain PyTorch modules: a ResNet-18-like
network (3x3 convolutions, residual blocks), a MobileNet-V2-like one (inverted residuals with
depthwise convolutions) and a small vision transformer (16x16 patches, 8 encoder layers).

Nothing is downloaded: the weights come from a fixed seed. calibrate() then sets the batch-norm
statistics from the frame pool's class prototypes and fits the classifier head to them in closed
form (the nearest class mean in each network's own feature space), so the three networks classify
the frames correctly and their votes agree, and a vote that disagrees means something went wrong.
"""

import torch
from torch import nn


def conv_bn(cin, cout, k, stride=1, groups=1, act=True):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU(inplace=True))
    return nn.Sequential(*layers)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.body = nn.Sequential(conv_bn(cin, cout, 3, stride), conv_bn(cout, cout, 3, act=False))
        self.skip = (nn.Identity() if stride == 1 and cin == cout
                     else conv_bn(cin, cout, 1, stride, act=False))
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu(self.body(x) + self.skip(x))


class ResNet(nn.Module):
    """ResNet-18 with blocks=(2, 2, 2, 2); ResNet-34 with (3, 4, 6, 3) (the training co-tenant)."""

    def __init__(self, blocks=(2, 2, 2, 2), width=64, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, width, 7, 2), nn.MaxPool2d(3, 2, 1))
        stages, cin = [], width
        for i, n in enumerate(blocks):
            cout = width * 2 ** i
            for j in range(n):
                stages.append(BasicBlock(cin, cout, 2 if j == 0 and i > 0 else 1))
                cin = cout
        self.stages = nn.Sequential(*stages)
        self.features_dim = cin
        self.head = nn.Linear(cin, classes)

    def features(self, x):
        return self.stages(self.stem(x)).mean((2, 3))

    def forward(self, x):
        return self.head(self.features(x))


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        mid = cin * expand
        layers = [] if expand == 1 else [conv_bn(cin, mid, 1)]
        layers += [conv_bn(mid, mid, 3, stride, groups=mid), conv_bn(mid, cout, 1, act=False)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.body(x)
        return x + y if self.residual else y


class MobileNet(nn.Module):
    # (expansion, channels, repeats, first stride), as in MobileNet-V2
    SETTINGS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1))

    def __init__(self, classes=1000):
        super().__init__()
        layers, cin = [conv_bn(3, 32, 3, 2)], 32
        for t, c, n, s in self.SETTINGS:
            for j in range(n):
                layers.append(InvertedResidual(cin, c, s if j == 0 else 1, t))
                cin = c
        layers.append(conv_bn(cin, 1280, 1))
        self.body = nn.Sequential(*layers)
        self.features_dim = 1280
        self.head = nn.Linear(1280, classes)

    def features(self, x):
        return self.body(x).mean((2, 3))

    def forward(self, x):
        return self.head(self.features(x))


class VisionTransformer(nn.Module):
    def __init__(self, patch=16, dim=384, depth=8, heads=6, classes=1000, image=224):
        super().__init__()
        self.patches = nn.Conv2d(3, dim, patch, patch)
        tokens = (image // patch) ** 2
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, tokens + 1, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 4, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.features_dim = dim
        self.head = nn.Linear(dim, classes)

    def features(self, x):
        x = self.patches(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.norm(self.encoder(x))[:, 0]

    def forward(self, x):
        return self.head(self.features(x))


BUILDERS = {
    "resnet18": lambda classes: ResNet(classes=classes),
    "mobilenet": lambda classes: MobileNet(classes=classes),
    "vit": lambda classes: VisionTransformer(classes=classes),
}


def build(name, seed, classes=1000):
    if name not in BUILDERS:
        raise ValueError("unknown model %r; choose one of %s" % (name, ", ".join(BUILDERS)))
    torch.manual_seed(seed)
    return BUILDERS[name](classes)


@torch.no_grad()
def calibrate(model, prototypes):
    """Fit a float32 model to the prototypes (one image per class, on the model's device), then
    leave it in eval mode. Batch norm takes the prototypes' statistics (untrained statistics
    would let activations grow layer by layer until fp16 overflows); the head becomes the nearest
    class mean: class c scores the centred feature against prototype c's centred, normalised
    feature."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a plain average over the calibration batch
    model.train()
    model.features(prototypes)
    model.eval()
    f = model.features(prototypes)
    mean = f.mean(0, keepdim=True)
    w = f - mean
    w = w / w.norm(dim=1, keepdim=True).clamp_min(1e-6)
    head = nn.Linear(f.shape[1], f.shape[0]).to(prototypes.device)
    head.weight.copy_(w)
    head.bias.copy_(-(w @ mean.T).squeeze(1))
    model.head = head
    return model
