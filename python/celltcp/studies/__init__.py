"""Studies that are not seed reproductions: a scenario, replications and claims decided by
stated tests (:mod:`celltcp.reproduce.verdict`)."""
