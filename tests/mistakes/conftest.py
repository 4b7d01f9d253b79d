"""Run this topic's claims on one CPU thread, then restore the setting.

Its tensors are tiny (widths 32 to 128, batches of 8 to 32): handing such ops to several threads
costs more than it saves, and on a busy machine the waiting threads made these tests many times slower.
"""

import pytest
import torch


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
