"""The twin's benchmarks still run (docs/benchmarks.md), as tests/test_benches_run.py's do: the two
that drive what the other twin tests do not (the controls, the club link's heap on the chip), each on
a twin of its own started from the run's one deploy (twin_support.deployed_image: the figures are the
same, a deploy's minute of the machine saved); the club evening bench (minutes of broker outage) is
left to its own command. A module of its own, so that it runs beside the other benches."""
from __future__ import annotations

import shutil

import pytest

from test_benches_run import runs
from twin_support import TWIN_TESTS, deployed_image

pytestmark = [*TWIN_TESTS, pytest.mark.emulator, pytest.mark.broker, pytest.mark.process]

ON_THE_TWIN = [
    (["bench_controls_twin.py", "--presses", "2"], "OLED caught up"),
    (["bench_wifi_twin.py", "--tables", "3"], "the link's own heap"),     # one round's size of the three
]


@pytest.mark.parametrize("command,figure", ON_THE_TWIN, ids=[c[0][0].removesuffix(".py") for c in ON_THE_TWIN])
def test_the_twin_bench_runs_and_prints_its_figures(command, figure, tmp_path, tmp_path_factory):
    flash = tmp_path / "deployed.img"
    shutil.copyfile(deployed_image(tmp_path_factory), flash)
    runs([*command, "--flash", str(flash)], figure, tmp_path, 600)
