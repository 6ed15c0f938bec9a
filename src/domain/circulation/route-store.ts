import { copyTextRow, type Queryable } from '../../shared/db/db.js';
import type { ChainedRoute } from './chain-routes.js';

/** A route as the official checks need it: node keys in order, and whether it is a cut loop. */
export interface RouteShape {
  routeId: string;
  nodes: string[];
  containsLoopBreak: boolean;
}

/** The numbers a node key stands for: "G4340/G4337" -> [G4340, G4337]. */
export function codesOfNodeKey(nodeKey: string): string[] {
  return nodeKey.split('/');
}

/** Writes a run's routes and their nodes (COPY). */
export async function writeRoutes(
  tx: Queryable,
  runId: number,
  routes: readonly ChainedRoute[],
): Promise<void> {
  if (routes.length === 0) return;
  let routeRows = '';
  let nodeRows = '';
  for (const r of routes) {
    routeRows += copyTextRow([
      runId,
      r.routeId,
      r.nodes.length,
      r.containsLoopBreak,
      r.lowestLinkWeight,
      r.lowestLinkSupportCount,
      r.loopBreak?.weight,
      r.loopBreak?.support,
    ]);
    r.nodes.forEach((key, i) => {
      const link = i < r.links.length ? r.links[i] : r.loopBreak;
      nodeRows += copyTextRow([
        runId,
        r.routeId,
        i,
        key,
        `{${codesOfNodeKey(key).join(',')}}`,
        link?.weight,
        link?.forward,
        link?.backward,
        link?.support,
      ]);
    });
  }
  await tx.copyFrom(
    'circulation_routes',
    [
      'run_id',
      'route_id',
      'node_count',
      'contains_loop_break',
      'lowest_link_weight',
      'lowest_link_support',
      'loop_break_weight',
      'loop_break_support',
    ],
    routeRows,
  );
  await tx.copyFrom(
    'circulation_route_nodes',
    [
      'run_id',
      'route_id',
      'position',
      'node_key',
      'train_codes',
      'next_weight',
      'next_forward_weight',
      'next_backward_weight',
      'next_support',
    ],
    nodeRows,
  );
}

/** The run readers use, or undefined before the first run has finished. */
export async function currentRunId(db: Queryable): Promise<number | undefined> {
  const r = await db.query<{ run_id: number }>('SELECT run_id FROM circulation_current');
  return r.rows[0]?.run_id;
}

/** Every route of a run, nodes in order. */
export async function readRouteShapes(db: Queryable, runId: number): Promise<RouteShape[]> {
  const r = await db.query<{ route_id: string; contains_loop_break: boolean; nodes: string[] }>(
    `SELECT r.route_id, r.contains_loop_break,
            ARRAY(SELECT n.node_key FROM circulation_route_nodes n
                   WHERE n.run_id = r.run_id AND n.route_id = r.route_id
                   ORDER BY n.position) AS nodes
       FROM circulation_routes r
      WHERE r.run_id = $1
      ORDER BY r.route_id`,
    [runId],
  );
  return r.rows.map((row) => ({
    routeId: row.route_id,
    nodes: row.nodes,
    containsLoopBreak: row.contains_loop_break,
  }));
}
