"""Run this topic's claims on one CPU thread, then restore the setting.

Its tensors are tiny (widths 16 to 128): splitting such ops across threads costs more in hand-offs
than it saves, and on a busy machine the waiting threads made these tests ten times slower.
"""

import pytest
import torch


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
