"""Positional parameters of ``torch.nn`` layers and ``torch.nn.functional`` functions, for checks at call sites.

``SIGNATURES`` maps a qualified name to its positional parameters, in order, as ``name:kind=default`` (kind ``b``
bool, ``f`` float, ``i`` int, ``o`` anything else; the default is omitted when there is none or it is not a number).
Only callees with a bool or float parameter are listed; ``device``/``dtype`` and private parameters are left out.
The table is generated from an installed torch by :func:`generate` (``python -m
mlsleuth.scan.analysis.torch_signatures > FILE`` prints a fresh one) and a test compares it with the installed torch,
so the scan itself never imports torch.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple


class Param(NamedTuple):
    name: str
    kind: str  # "b", "f", "i" or "o"
    default: float | bool | None


@cache
def positional(qualname: str) -> tuple[Param, ...] | None:
    """The positional parameters of ``qualname`` (``torch.nn.LeakyReLU``), or None when it is not listed."""
    text = SIGNATURES.get(qualname)
    if text is None:
        return None
    out = []
    for item in text.split(","):
        head, _, default = item.partition("=")
        name, _, kind = head.partition(":")
        value: float | bool | None = None
        if default in ("True", "False"):
            value = default == "True"
        elif default:
            value = float(default)
        out.append(Param(name, kind, value))
    return tuple(out)


def generate() -> dict[str, str]:
    """The table from the installed torch (development only: imports torch)."""
    import inspect

    import torch.nn as nn
    import torch.nn.functional as F

    def kind(annotation: object) -> str:
        text = str(annotation)
        if annotation is bool or text == "bool":
            return "b"
        if annotation is float or text in ("float", "typing.Optional[float]", "Optional[float]", "float | None"):
            return "f"
        return "i" if annotation is int or text == "int" else "o"

    def params(fn: object, skip: int) -> str | None:
        try:
            sig = inspect.signature(fn)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return None
        items, kinds = [], set()
        for p in list(sig.parameters.values())[skip:]:
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.name in ("device", "dtype") or p.name.startswith("_"):
                break
            k = kind(p.annotation)
            kinds.add(k)
            d = p.default
            default = "" if d is inspect.Parameter.empty or not isinstance(d, (bool, int, float)) else f"={d!r}"
            items.append(f"{p.name}:{k}{default}")
        return ",".join(items) if kinds & {"b", "f"} else None

    table: dict[str, str] = {}
    for name in sorted(dir(nn)):
        cls = getattr(nn, name)
        if not name.startswith("_") and inspect.isclass(cls) and issubclass(cls, nn.Module):
            text = params(cls.__init__, 1)
            if text:
                table[f"torch.nn.{name}"] = text
    for name in sorted(dir(F)):
        fn = getattr(F, name)
        if not name.startswith("_") and callable(fn) and not inspect.isclass(fn) and getattr(fn, "__module__", "") == "torch.nn.functional":
            text = params(fn, 0)
            if text:
                table[f"torch.nn.functional.{name}"] = text
    return table


SIGNATURES: dict[str, str] = {
    'torch.nn.AdaptiveLogSoftmaxWithLoss': 'in_features:i,n_classes:i,cutoffs:o,div_value:f=4.0,head_bias:b=False',
    'torch.nn.AdaptiveMaxPool1d': 'output_size:o,return_indices:b=False',
    'torch.nn.AdaptiveMaxPool2d': 'output_size:o,return_indices:b=False',
    'torch.nn.AdaptiveMaxPool3d': 'output_size:o,return_indices:b=False',
    'torch.nn.AlphaDropout': 'p:f=0.5,inplace:b=False',
    'torch.nn.AvgPool1d': 'kernel_size:o,stride:o,padding:o=0,ceil_mode:b=False,count_include_pad:b=True',
    'torch.nn.AvgPool2d': 'kernel_size:o,stride:o,padding:o=0,ceil_mode:b=False,count_include_pad:b=True,divisor_override:o',
    'torch.nn.AvgPool3d': 'kernel_size:o,stride:o,padding:o=0,ceil_mode:b=False,count_include_pad:b=True,divisor_override:o',
    'torch.nn.BatchNorm1d': 'num_features:i,eps:f=1e-05,momentum:f=0.1,affine:b=True,track_running_stats:b=True',
    'torch.nn.BatchNorm2d': 'num_features:i,eps:f=1e-05,momentum:f=0.1,affine:b=True,track_running_stats:b=True',
    'torch.nn.BatchNorm3d': 'num_features:i,eps:f=1e-05,momentum:f=0.1,affine:b=True,track_running_stats:b=True',
    'torch.nn.Bilinear': 'in1_features:i,in2_features:i,out_features:i,bias:b=True',
    'torch.nn.CELU': 'alpha:f=1.0,inplace:b=False',
    'torch.nn.CTCLoss': 'blank:i=0,reduction:o,zero_infinity:b=False',
    'torch.nn.ConstantPad1d': 'padding:o,value:f',
    'torch.nn.ConstantPad2d': 'padding:o,value:f',
    'torch.nn.ConstantPad3d': 'padding:o,value:f',
    'torch.nn.Conv1d': 'in_channels:i,out_channels:i,kernel_size:o,stride:o=1,padding:o=0,dilation:o=1,groups:i=1,bias:b=True,padding_mode:o',
    'torch.nn.Conv2d': 'in_channels:i,out_channels:i,kernel_size:o,stride:o=1,padding:o=0,dilation:o=1,groups:i=1,bias:b=True,padding_mode:o',
    'torch.nn.Conv3d': 'in_channels:i,out_channels:i,kernel_size:o,stride:o=1,padding:o=0,dilation:o=1,groups:i=1,bias:b=True,padding_mode:o',
    'torch.nn.ConvTranspose1d': 'in_channels:i,out_channels:i,kernel_size:o,stride:o=1,padding:o=0,output_padding:o=0,groups:i=1,bias:b=True,dilation:o=1,padding_mode:o',
    'torch.nn.ConvTranspose2d': 'in_channels:i,out_channels:i,kernel_size:o,stride:o=1,padding:o=0,output_padding:o=0,groups:i=1,bias:b=True,dilation:o=1,padding_mode:o',
    'torch.nn.ConvTranspose3d': 'in_channels:i,out_channels:i,kernel_size:o,stride:o=1,padding:o=0,output_padding:o=0,groups:i=1,bias:b=True,dilation:o=1,padding_mode:o',
    'torch.nn.CosineEmbeddingLoss': 'margin:f=0.0,size_average:o,reduce:o,reduction:o',
    'torch.nn.CosineSimilarity': 'dim:i=1,eps:f=1e-08',
    'torch.nn.CrossEntropyLoss': 'weight:o,size_average:o,ignore_index:i=-100,reduce:o,reduction:o,label_smoothing:f=0.0',
    'torch.nn.CrossMapLRN2d': 'size:i,alpha:f=0.0001,beta:f=0.75,k:f=1',
    'torch.nn.Dropout': 'p:f=0.5,inplace:b=False',
    'torch.nn.Dropout1d': 'p:f=0.5,inplace:b=False',
    'torch.nn.Dropout2d': 'p:f=0.5,inplace:b=False',
    'torch.nn.Dropout3d': 'p:f=0.5,inplace:b=False',
    'torch.nn.ELU': 'alpha:f=1.0,inplace:b=False',
    'torch.nn.Embedding': 'num_embeddings:i,embedding_dim:i,padding_idx:o,max_norm:f,norm_type:f=2.0,scale_grad_by_freq:b=False,sparse:b=False',
    'torch.nn.EmbeddingBag': 'num_embeddings:i,embedding_dim:i,max_norm:f,norm_type:f=2.0,scale_grad_by_freq:b=False,mode:o,sparse:b=False',
    'torch.nn.FeatureAlphaDropout': 'p:f=0.5,inplace:b=False',
    'torch.nn.FractionalMaxPool2d': 'kernel_size:o,output_size:o,output_ratio:o,return_indices:b=False',
    'torch.nn.FractionalMaxPool3d': 'kernel_size:o,output_size:o,output_ratio:o,return_indices:b=False',
    'torch.nn.GRUCell': 'input_size:i,hidden_size:i,bias:b=True',
    'torch.nn.GroupNorm': 'num_groups:i,num_channels:i,eps:f=1e-05,affine:b=True',
    'torch.nn.Hardshrink': 'lambd:f=0.5',
    'torch.nn.Hardsigmoid': 'inplace:b=False',
    'torch.nn.Hardswish': 'inplace:b=False',
    'torch.nn.Hardtanh': 'min_val:f=-1.0,max_val:f=1.0,inplace:b=False,min_value:f,max_value:f',
    'torch.nn.HingeEmbeddingLoss': 'margin:f=1.0,size_average:o,reduce:o,reduction:o',
    'torch.nn.HuberLoss': 'reduction:o,delta:f=1.0',
    'torch.nn.InstanceNorm1d': 'num_features:i,eps:f=1e-05,momentum:f=0.1,affine:b=False,track_running_stats:b=False',
    'torch.nn.InstanceNorm2d': 'num_features:i,eps:f=1e-05,momentum:f=0.1,affine:b=False,track_running_stats:b=False',
    'torch.nn.InstanceNorm3d': 'num_features:i,eps:f=1e-05,momentum:f=0.1,affine:b=False,track_running_stats:b=False',
    'torch.nn.KLDivLoss': 'size_average:o,reduce:o,reduction:o,log_target:b=False',
    'torch.nn.LPPool1d': 'norm_type:f,kernel_size:o,stride:o,ceil_mode:b=False',
    'torch.nn.LPPool2d': 'norm_type:f,kernel_size:o,stride:o,ceil_mode:b=False',
    'torch.nn.LPPool3d': 'norm_type:f,kernel_size:o,stride:o,ceil_mode:b=False',
    'torch.nn.LSTMCell': 'input_size:i,hidden_size:i,bias:b=True',
    'torch.nn.LayerNorm': 'normalized_shape:o,eps:f=1e-05,elementwise_affine:b=True,bias:b=True',
    'torch.nn.LazyConv1d': 'out_channels:i,kernel_size:o,stride:o=1,padding:o=0,dilation:o=1,groups:i=1,bias:b=True,padding_mode:o',
    'torch.nn.LazyConv2d': 'out_channels:i,kernel_size:o,stride:o=1,padding:o=0,dilation:o=1,groups:i=1,bias:b=True,padding_mode:o',
    'torch.nn.LazyConv3d': 'out_channels:i,kernel_size:o,stride:o=1,padding:o=0,dilation:o=1,groups:i=1,bias:b=True,padding_mode:o',
    'torch.nn.LazyConvTranspose1d': 'out_channels:i,kernel_size:o,stride:o=1,padding:o=0,output_padding:o=0,groups:i=1,bias:b=True,dilation:o=1,padding_mode:o',
    'torch.nn.LazyConvTranspose2d': 'out_channels:i,kernel_size:o,stride:o=1,padding:o=0,output_padding:o=0,groups:i=1,bias:b=True,dilation:i=1,padding_mode:o',
    'torch.nn.LazyConvTranspose3d': 'out_channels:i,kernel_size:o,stride:o=1,padding:o=0,output_padding:o=0,groups:i=1,bias:b=True,dilation:o=1,padding_mode:o',
    'torch.nn.LazyLinear': 'out_features:i,bias:b=True',
    'torch.nn.LeakyReLU': 'negative_slope:f=0.01,inplace:b=False',
    'torch.nn.Linear': 'in_features:i,out_features:i,bias:b=True',
    'torch.nn.LocalResponseNorm': 'size:i,alpha:f=0.0001,beta:f=0.75,k:f=1.0',
    'torch.nn.MarginRankingLoss': 'margin:f=0.0,size_average:o,reduce:o,reduction:o',
    'torch.nn.MaxPool1d': 'kernel_size:o,stride:o,padding:o=0,dilation:o=1,return_indices:b=False,ceil_mode:b=False',
    'torch.nn.MaxPool2d': 'kernel_size:o,stride:o,padding:o=0,dilation:o=1,return_indices:b=False,ceil_mode:b=False',
    'torch.nn.MaxPool3d': 'kernel_size:o,stride:o,padding:o=0,dilation:o=1,return_indices:b=False,ceil_mode:b=False',
    'torch.nn.Mish': 'inplace:b=False',
    'torch.nn.MultiMarginLoss': 'p:i=1,margin:f=1.0,weight:o,size_average:o,reduce:o,reduction:o',
    'torch.nn.PReLU': 'num_parameters:i=1,init:f=0.25',
    'torch.nn.PairwiseDistance': 'p:f=2.0,eps:f=1e-06,keepdim:b=False',
    'torch.nn.PoissonNLLLoss': 'log_input:b=True,full:b=False,size_average:o,eps:f=1e-08,reduce:o,reduction:o',
    'torch.nn.RMSNorm': 'normalized_shape:o,eps:f,elementwise_affine:b=True',
    'torch.nn.RNNBase': 'mode:o,input_size:i,hidden_size:i,num_layers:i=1,bias:b=True,batch_first:b=False,dropout:f=0.0,bidirectional:b=False,proj_size:i=0',
    'torch.nn.RNNCell': 'input_size:i,hidden_size:i,bias:b=True,nonlinearity:o',
    'torch.nn.RNNCellBase': 'input_size:i,hidden_size:i,bias:b,num_chunks:i',
    'torch.nn.RReLU': 'lower:f=0.125,upper:f=0.3333333333333333,inplace:b=False',
    'torch.nn.ReLU': 'inplace:b=False',
    'torch.nn.ReLU6': 'inplace:b=False',
    'torch.nn.SELU': 'inplace:b=False',
    'torch.nn.SiLU': 'inplace:b=False',
    'torch.nn.SmoothL1Loss': 'size_average:o,reduce:o,reduction:o,beta:f=1.0',
    'torch.nn.Softplus': 'beta:f=1.0,threshold:f=20.0',
    'torch.nn.Softshrink': 'lambd:f=0.5',
    'torch.nn.SyncBatchNorm': 'num_features:i,eps:f=1e-05,momentum:f=0.1,affine:b=True,track_running_stats:b=True,process_group:o',
    'torch.nn.Threshold': 'threshold:f,value:f,inplace:b=False',
    'torch.nn.Transformer': 'd_model:i=512,nhead:i=8,num_encoder_layers:i=6,num_decoder_layers:i=6,dim_feedforward:i=2048,dropout:f=0.1,activation:o,custom_encoder:o,custom_decoder:o,layer_norm_eps:f=1e-05,batch_first:b=False,norm_first:b=False,bias:b=True',
    'torch.nn.TransformerDecoderLayer': 'd_model:i,nhead:i,dim_feedforward:i=2048,dropout:f=0.1,activation:o,layer_norm_eps:f=1e-05,batch_first:b=False,norm_first:b=False,bias:b=True',
    'torch.nn.TransformerEncoder': 'encoder_layer:o,num_layers:i,norm:o,enable_nested_tensor:b=True,mask_check:b=True',
    'torch.nn.TransformerEncoderLayer': 'd_model:i,nhead:i,dim_feedforward:i=2048,dropout:f=0.1,activation:o,layer_norm_eps:f=1e-05,batch_first:b=False,norm_first:b=False,bias:b=True',
    'torch.nn.TripletMarginLoss': 'margin:f=1.0,p:f=2.0,eps:f=1e-06,swap:b=False,size_average:o,reduce:o,reduction:o',
    'torch.nn.functional.adaptive_max_pool1d_with_indices': 'input:o,output_size:o,return_indices:b=False',
    'torch.nn.functional.adaptive_max_pool2d_with_indices': 'input:o,output_size:o,return_indices:b=False',
    'torch.nn.functional.adaptive_max_pool3d_with_indices': 'input:o,output_size:o,return_indices:b=False',
    'torch.nn.functional.alpha_dropout': 'input:o,p:f=0.5,training:b=False,inplace:b=False',
    'torch.nn.functional.batch_norm': 'input:o,running_mean:o,running_var:o,weight:o,bias:o,training:b=False,momentum:f=0.1,eps:f=1e-05',
    'torch.nn.functional.celu': 'input:o,alpha:f=1.0,inplace:b=False',
    'torch.nn.functional.cosine_embedding_loss': 'input1:o,input2:o,target:o,margin:f=0,size_average:o,reduce:o,reduction:o',
    'torch.nn.functional.cross_entropy': 'input:o,target:o,weight:o,size_average:o,ignore_index:i=-100,reduce:o,reduction:o,label_smoothing:f=0.0',
    'torch.nn.functional.ctc_loss': 'log_probs:o,targets:o,input_lengths:o,target_lengths:o,blank:i=0,reduction:o,zero_infinity:b=False',
    'torch.nn.functional.dropout': 'input:o,p:f=0.5,training:b=True,inplace:b=False',
    'torch.nn.functional.dropout1d': 'input:o,p:f=0.5,training:b=True,inplace:b=False',
    'torch.nn.functional.dropout2d': 'input:o,p:f=0.5,training:b=True,inplace:b=False',
    'torch.nn.functional.dropout3d': 'input:o,p:f=0.5,training:b=True,inplace:b=False',
    'torch.nn.functional.elu': 'input:o,alpha:f=1.0,inplace:b=False',
    'torch.nn.functional.embedding': 'input:o,weight:o,padding_idx:o,max_norm:f,norm_type:f=2.0,scale_grad_by_freq:b=False,sparse:b=False',
    'torch.nn.functional.embedding_bag': 'input:o,weight:o,offsets:o,max_norm:f,norm_type:f=2,scale_grad_by_freq:b=False,mode:o,sparse:b=False,per_sample_weights:o,include_last_offset:b=False,padding_idx:o',
    'torch.nn.functional.feature_alpha_dropout': 'input:o,p:f=0.5,training:b=False,inplace:b=False',
    'torch.nn.functional.fractional_max_pool2d_with_indices': 'input:o,kernel_size:o,output_size:o,output_ratio:o,return_indices:b=False',
    'torch.nn.functional.fractional_max_pool3d_with_indices': 'input:o,kernel_size:o,output_size:o,output_ratio:o,return_indices:b=False',
    'torch.nn.functional.gaussian_nll_loss': 'input:o,target:o,var:o,full:b=False,eps:f=1e-06,reduction:o',
    'torch.nn.functional.group_norm': 'input:o,num_groups:i,weight:o,bias:o,eps:f=1e-05',
    'torch.nn.functional.gumbel_softmax': 'logits:o,tau:f=1,hard:b=False,eps:f=1e-10,dim:i=-1',
    'torch.nn.functional.hardsigmoid': 'input:o,inplace:b=False',
    'torch.nn.functional.hardswish': 'input:o,inplace:b=False',
    'torch.nn.functional.hardtanh': 'input:o,min_val:f=-1.0,max_val:f=1.0,inplace:b=False',
    'torch.nn.functional.hinge_embedding_loss': 'input:o,target:o,margin:f=1.0,size_average:o,reduce:o,reduction:o',
    'torch.nn.functional.huber_loss': 'input:o,target:o,reduction:o,delta:f=1.0,weight:o',
    'torch.nn.functional.instance_norm': 'input:o,running_mean:o,running_var:o,weight:o,bias:o,use_input_stats:b=True,momentum:f=0.1,eps:f=1e-05',
    'torch.nn.functional.interpolate': 'input:o,size:o,scale_factor:o,mode:o,align_corners:o,recompute_scale_factor:o,antialias:b=False',
    'torch.nn.functional.kl_div': 'input:o,target:o,size_average:o,reduce:o,reduction:o,log_target:b=False',
    'torch.nn.functional.layer_norm': 'input:o,normalized_shape:o,weight:o,bias:o,eps:f=1e-05',
    'torch.nn.functional.leaky_relu': 'input:o,negative_slope:f=0.01,inplace:b=False',
    'torch.nn.functional.local_response_norm': 'input:o,size:i,alpha:f=0.0001,beta:f=0.75,k:f=1.0',
    'torch.nn.functional.lp_pool1d': 'input:o,norm_type:o,kernel_size:i,stride:o,ceil_mode:b=False',
    'torch.nn.functional.lp_pool2d': 'input:o,norm_type:o,kernel_size:o,stride:o,ceil_mode:b=False',
    'torch.nn.functional.lp_pool3d': 'input:o,norm_type:o,kernel_size:o,stride:o,ceil_mode:b=False',
    'torch.nn.functional.margin_ranking_loss': 'input1:o,input2:o,target:o,margin:f=0,size_average:o,reduce:o,reduction:o',
    'torch.nn.functional.max_pool1d_with_indices': 'input:o,kernel_size:o,stride:o,padding:o=0,dilation:o=1,ceil_mode:b=False,return_indices:b=False',
    'torch.nn.functional.max_pool2d_with_indices': 'input:o,kernel_size:o,stride:o,padding:o=0,dilation:o=1,ceil_mode:b=False,return_indices:b=False',
    'torch.nn.functional.max_pool3d_with_indices': 'input:o,kernel_size:o,stride:o,padding:o=0,dilation:o=1,ceil_mode:b=False,return_indices:b=False',
    'torch.nn.functional.mish': 'input:o,inplace:b=False',
    'torch.nn.functional.multi_head_attention_forward': 'query:o,key:o,value:o,embed_dim_to_check:i,num_heads:i,in_proj_weight:o,in_proj_bias:o,bias_k:o,bias_v:o,add_zero_attn:b,dropout_p:f,out_proj_weight:o,out_proj_bias:o,training:b=True,key_padding_mask:o,need_weights:b=True,attn_mask:o,use_separate_proj_weight:b=False,q_proj_weight:o,k_proj_weight:o,v_proj_weight:o,static_k:o,static_v:o,average_attn_weights:b=True,is_causal:b=False',
    'torch.nn.functional.multi_margin_loss': 'input:o,target:o,p:i=1,margin:f=1.0,weight:o,size_average:o,reduce:o,reduction:o',
    'torch.nn.functional.normalize': 'input:o,p:f=2.0,dim:i=1,eps:f=1e-12,out:o',
    'torch.nn.functional.pad': 'input:o,pad:o,mode:o,value:f',
    'torch.nn.functional.poisson_nll_loss': 'input:o,target:o,log_input:b=True,full:b=False,size_average:o,eps:f=1e-08,reduce:o,reduction:o',
    'torch.nn.functional.relu': 'input:o,inplace:b=False',
    'torch.nn.functional.relu6': 'input:o,inplace:b=False',
    'torch.nn.functional.rms_norm': 'input:o,normalized_shape:o,weight:o,eps:f',
    'torch.nn.functional.rrelu': 'input:o,lower:f=0.125,upper:f=0.3333333333333333,training:b=False,inplace:b=False',
    'torch.nn.functional.scaled_grouped_mm': 'mat_a:o,mat_b:o,scale_a:o,scale_recipe_a:o,scale_b:o,scale_recipe_b:o,swizzle_a:o,swizzle_b:o,bias:o,offs:o,output_dtype:o,contraction_dim:o,use_fast_accum:b=False',
    'torch.nn.functional.scaled_mm': 'mat_a:o,mat_b:o,scale_a:o,scale_recipe_a:o,scale_b:o,scale_recipe_b:o,swizzle_a:o,swizzle_b:o,bias:o,output_dtype:o,contraction_dim:o,use_fast_accum:b=False',
    'torch.nn.functional.selu': 'input:o,inplace:b=False',
    'torch.nn.functional.silu': 'input:o,inplace:b=False',
    'torch.nn.functional.smooth_l1_loss': 'input:o,target:o,size_average:o,reduce:o,reduction:o,beta:f=1.0',
    'torch.nn.functional.threshold': 'input:o,threshold:f,value:f,inplace:b=False',
    'torch.nn.functional.triplet_margin_loss': 'anchor:o,positive:o,negative:o,margin:f=1.0,p:f=2,eps:f=1e-06,swap:b=False,size_average:o,reduce:o,reduction:o',
}


if __name__ == "__main__":
    print("SIGNATURES: dict[str, str] = {")
    for key, value in generate().items():
        print(f"    {key!r}: {value!r},")
    print("}")
