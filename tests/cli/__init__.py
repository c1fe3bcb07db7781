"""The commands: options declared once, one meaning per name, recipe files, `promptmem memory`."""
