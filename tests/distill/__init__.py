"""distill/ (promptmem.distill): the pipeline, SFT and GRPO on a scratch student, curriculum,
students, GGUF export, the TRL API it builds on."""
