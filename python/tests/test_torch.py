"""synergy.torch: checkpoints that never replace the confirmed one and
restore RNG states, and a data loader whose batches depend only on where it
starts, not on its workers."""
import os
import tempfile
import time
import unittest

try:
    import torch

    import synergy.torch as st
except ImportError:  # Debian's python3-torch is not installed
    torch = None


class Noisy(object):
    """Sample i: a random tensor (seeded by the loader per index) and i."""

    def __len__(self):
        return 40

    def __getitem__(self, i):
        return torch.rand(3), i


@unittest.skipIf(torch is None, "no python3-torch")
class TorchAdapters(unittest.TestCase):
    def test_a_loader_resumed_mid_way_gives_the_batches_of_a_straight_run(self):
        straight = [b for b in st.data_loader(Noisy(), 4, workers=0)]
        for workers in (0, 2):
            resumed = list(st.data_loader(Noisy(), 4, workers=workers, start_sample=12))
            self.assertEqual(len(resumed), len(straight) - 3)
            for a, b in zip(resumed, straight[3:]):
                self.assertTrue(torch.equal(a[0], b[0]), f"workers={workers}")
                self.assertTrue(torch.equal(a[1], b[1]))

    def test_ranks_share_each_global_batch_as_one_process_would_take_it(self):
        one = list(st.data_loader(Noisy(), 4, workers=0))
        ranks = [list(st.data_loader(Noisy(), 2, workers=0, rank=r, world=2)) for r in (0, 1)]
        self.assertEqual(len(ranks[0]), len(one))
        for g, batch in enumerate(one):
            together = torch.cat([ranks[0][g][0], ranks[1][g][0]])
            self.assertTrue(torch.equal(together, batch[0]), f"global batch {g}")

    def test_a_lease_loader_resized_mid_way_gives_the_batches_of_a_straight_run(self):
        class Lease:
            cpus = 3

        class ManagedAgent:  # what LeaseLoader uses of synergy.Agent
            managed = True
            lease = Lease()

            def on_resize(self, apply):
                self.apply = apply

        class Allocation:
            def __init__(self, cpus):
                self.cpus = cpus

        def make(workers, first, batches):
            return st.data_loader(Noisy(), 4, workers=workers, start_sample=first * 4, samples=batches * 4)

        straight = list(make(0, 0, 10))
        agent = ManagedAgent()
        announced = []
        loader = st.LeaseLoader(agent, make, 0, 10, announce=lambda a, w: announced.append(w))
        self.assertEqual(loader.workers, 2, "one of the lease's 3 CPUs stays with the loop")
        got, rng_at = [], None
        for i, batch in enumerate(loader):
            got.append(batch)
            if i == 2:
                rng_at = torch.get_rng_state()
                agent.apply(Allocation(2))  # shrink: the workers are shut down inside the callback
                self.assertIsNone(loader._iterator, "shed before the callback returns")
            if i == 3:
                self.assertTrue(torch.equal(torch.get_rng_state(), rng_at), "a new loader leaves torch's RNG alone")
            if i == 5:
                agent.apply(Allocation(4))  # grow
        self.assertEqual((loader.workers, loader.resizes, announced), (3, 2, [1, 3]))
        self.assertEqual(len(got), len(straight))
        for g, (a, b) in enumerate(zip(got, straight)):
            self.assertTrue(torch.equal(a[0], b[0]), f"batch {g}")
            self.assertTrue(torch.equal(a[1], b[1]), f"batch {g}")

    def test_a_checkpoint_restores_model_optimizer_iteration_and_rng(self):
        with tempfile.TemporaryDirectory() as d:
            torch.manual_seed(1)
            model = torch.nn.Linear(3, 2)
            opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            model(torch.ones(1, 3)).sum().backward()
            opt.step()
            path = st.save_checkpoint(d, "j-000001", 7, model, opt, epoch=3)
            self.assertEqual(os.path.basename(path), "j-000001.7.e3.pt")
            self.assertEqual(sorted(os.listdir(d)), ["j-000001.7.e3.pt"], "no temporary file left")
            expected_next = torch.rand(1)
            other = torch.nn.Linear(3, 2)
            other_opt = torch.optim.SGD(other.parameters(), lr=0.1, momentum=0.9)
            self.assertEqual(st.load_checkpoint(path, other, other_opt), 7)
            self.assertTrue(torch.equal(other.weight, model.weight))
            self.assertEqual(other_opt.state_dict()["state"].keys(), opt.state_dict()["state"].keys())
            self.assertTrue(torch.equal(torch.rand(1), expected_next), "the RNG goes on where it was saved")

    def test_a_new_lease_never_writes_over_the_confirmed_checkpoint(self):
        with tempfile.TemporaryDirectory() as d:
            model = torch.nn.Linear(1, 1)
            confirmed = st.save_checkpoint(d, "j", 5, model, epoch=1)
            before = open(confirmed, "rb").read()
            torch.nn.init.constant_(model.weight, 3.0)
            again = st.save_checkpoint(d, "j", 5, model, epoch=2)  # stopped again at once
            self.assertNotEqual(again, confirmed)
            self.assertEqual(open(confirmed, "rb").read(), before)

    def test_workers_follow_the_lease_leaving_one_cpu_to_the_loop(self):
        self.assertEqual([st.workers_for(c) for c in (0, 1, 2, 4)], [0, 0, 1, 3])

    def test_the_profilers_measure_does_not_count_the_batches_workers_made_at_once(self):
        # k workers start together: the first k batches come at once, then
        # one every 20 ms. The steady rate is 50 batches/s; timed from the
        # first batch, 3 workers would read 61.
        def loader(workers, iterations):
            for i in range(iterations):
                if i >= max(1, workers):
                    time.sleep(0.02)
                yield i

        measure = st.pipeline_measure(loader, lambda batch: None)
        for cpus in (1, 4):
            rate = measure(cpus, 12)
            self.assertLess(rate, 52, f"{cpus} cpus")  # sleeping longer only lowers it
            self.assertGreater(rate, 20, f"{cpus} cpus")

    def test_bad_loader_arguments_are_refused_with_their_name(self):
        with self.assertRaisesRegex(ValueError, "batch_size: 0"):
            st.data_loader(Noisy(), 0, workers=0)
        with self.assertRaisesRegex(ValueError, "workers: -1"):
            st.data_loader(Noisy(), 2, workers=-1)


if __name__ == "__main__":
    unittest.main()
