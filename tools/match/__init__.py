"""Matches between engines: tuong-match's command line and driver (cli), the
games' referee and players (referee, runtime), results and their reports
(stats, sprt, sprt_runner), games on a Dask cluster (cluster,
cluster_bench) and the opening suites (openings, make_openings)."""
