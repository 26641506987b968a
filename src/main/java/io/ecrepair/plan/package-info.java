/**
 * Repair planning (docs/architecture.md#repair-plans; its JSON, #command-line-contract): which node
 * computes each vertex of a repair graph.
 *
 * <p><b>Model.</b> A {@link io.ecrepair.plan.RepairProblem} is a code's repair graph
 * ({@link io.ecrepair.ecdag.Ecdag}) over nodes named by internal block index: leaves are
 * fixed to their block's node, the root to the requestor (the lost index, or "R" outside the
 * group); a coloring puts every other vertex on a node (ParaRC's pECDAG). Its
 * {@link io.ecrepair.plan.Traffic} table counts, per node, the sub-chunks in and out: a value
 * goes once to every other node holding consumers of it (ParaRC sections 3.2 and 6.2). Repair
 * bandwidth is the total, max repair load the largest per-node max(in, out).
 *
 * <p><b>Strategies</b> ({@link io.ecrepair.plan.Planner}): centralized; pararc (the paper's
 * section-4 heuristic); bruteforce (exact, branch and bound); fast (ours: multilevel cluster
 * annealing toward a load target); pipeline and pipeline-cyclic (ECPipe), with weighted path
 * selection. {@link io.ecrepair.plan.GraphTransforms} rewrite a graph without changing what
 * it computes (partial sums, shared directions, chains) so that plans can push partial
 * results to helpers; {@link io.ecrepair.plan.LowerBounds} bound what any plan can reach.
 *
 * <p><b>Ahead of time.</b> {@link io.ecrepair.plan.PlanStore} keeps plans per code and lost
 * index (memory and {@code plan} JSON files, {@link io.ecrepair.plan.PlanJson}), so repairs
 * never search. {@code io.ecrepair.exec.SimulatedCluster} runs a plan across simulated nodes
 * on real bytes and checks it against its traffic table.
 */
package io.ecrepair.plan;
