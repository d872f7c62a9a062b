"""Launch rules: nodes, processes and the rendezvous they meet at."""
