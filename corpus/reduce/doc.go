// Package reduce implements, as program generators, the two reductions of the
// seed paper (shared/paper/rdma-robustness.tex) that turn classical decision
// problems into questions about RDMA programs:
//
//   - VASS state coverability to RDMA robustness (section 7, "Robustness is
//     EXPSPACE-Complete", with its "Extension to Robustness"): a VASS is
//     simulated by one leader thread whose counters are the numbers of
//     unpolled puts towards one auxiliary node per counter; the accepting
//     state leads to the non-robust program of section 5.1, so the program is
//     robust if and only if the accepting state is not coverable. See VASS,
//     ParseVASS, VASS.Program and VASSChain.
//
//   - Post's Correspondence Problem to RDMA reachability (section 3,
//     "Undecidability of Reachability", and the appendix "Program Code for the
//     Undecidability Proof"): four processes pass indices and letters over
//     remote writes with an alternating-bit handshake; the processes can all
//     terminate if and only if the instance has a solution. See PCP, ParsePCP
//     and PCP.Program.
//
// Both problems have a small line-based text format (described at ParseVASS
// and ParsePCP) whose instances live in corpus/vass/*.vass and
// corpus/pcp/*.pcp. Each instance may state its known answer with an expect
// line; the generated .rdma program then carries the matching expect lines.
// Independent checkers confirm those answers: a Karp–Miller coverability
// check for VASS (VASS.Coverable) and a bounded solution search for PCP
// (PCP.Solve).
//
// Parse errors are reported as file:line:col: message (type Error); no input
// makes a parser panic.
package reduce
