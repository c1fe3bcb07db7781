"""Distillation into small open models (``promptmem.distill``): traces, SFT, GRPO.

Heavy dependencies (torch, trl, peft) are imported only inside this package's modules.
"""
