"""What the tests share: scripted LMs, hand-built records and streams, a fake OpenAI server, the
kill harness, the scratch student. The benchmarks import some of it (`tests.helpers...`)."""
