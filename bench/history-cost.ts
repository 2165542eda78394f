/**
 * What a job costs the engine, read back from its histories: the root workflow, every
 * child it started (batches, nested jobs, subtasks), recursively. Workflows that start
 * children are the job's own cost; leaves are the subtasks'.
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const { EventType } = proto.temporal.api.enums.v1;

/** Engine work of a set of workflow runs. */
export interface EngineCost {
  workflows: number;
  events: number;
  workflowTasks: number;
  activityTasks: number;
}

/** The cost of a job's tree, split into the workflows that start children and the leaves. */
export interface TreeCost {
  parents: EngineCost;
  leaves: EngineCost;
}

const zero = (): EngineCost => ({ workflows: 0, events: 0, workflowTasks: 0, activityTasks: 0 });

/** One workflow of a job's tree, as `walkTree` hands it over. */
export interface TreeNode {
  workflowId: string;
  history: proto.temporal.api.history.v1.IHistory;
  /** True when it started children (the job, its batches and nested jobs; bare's parents). */
  isParent: boolean;
}

/** The history of the first child a workflow started (a small job's first subtask, a bare parent's first child). */
export async function firstChildHistory(client: Client, parentId: string): Promise<proto.temporal.api.history.v1.IHistory> {
  const parent = await client.workflow.getHandle(parentId).fetchHistory();
  const start = (parent.events ?? []).find((e) => e.eventType === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED);
  const childId = start?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
  if (!childId) throw new Error(`${parentId} started no child`);
  return client.workflow.getHandle(childId).fetchHistory();
}

/** Visits every workflow of the tree under `rootId` (latest runs), `concurrency` histories fetched at a time. */
export async function walkTree(client: Client, rootId: string, visit: (node: TreeNode) => void, concurrency = 16): Promise<void> {
  const queue = [rootId];
  const fetchOne = async (workflowId: string) => {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const children = (history.events ?? []).flatMap((e) =>
      e.eventType === EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED
        ? [e.childWorkflowExecutionStartedEventAttributes!.workflowExecution!.workflowId!]
        : [],
    );
    visit({ workflowId, history, isParent: children.length > 0 });
    queue.push(...children);
  };
  while (queue.length > 0) await Promise.all(queue.splice(0, concurrency).map(fetchOne));
}

/** What the tree under `rootId` cost the engine, parents and leaves apart. */
export async function treeCost(client: Client, rootId: string, concurrency = 16): Promise<TreeCost> {
  const cost: TreeCost = { parents: zero(), leaves: zero() };
  await walkTree(
    client,
    rootId,
    ({ history, isParent }) => {
      const events = history.events ?? [];
      const into = isParent ? cost.parents : cost.leaves;
      into.workflows += 1;
      into.events += events.length;
      into.workflowTasks += events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED).length;
      into.activityTasks += events.filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).length;
    },
    concurrency,
  );
  return cost;
}

/** Per-subtask figures: the leaves' own cost and the whole tree's, each divided by `n`. */
export function perSubtask(c: TreeCost, n: number) {
  const per = (x: number) => Math.round((x / n) * 100) / 100;
  return {
    subtask: { events: per(c.leaves.events), workflowTasks: per(c.leaves.workflowTasks), activityTasks: per(c.leaves.activityTasks) },
    withParents: {
      events: per(c.leaves.events + c.parents.events),
      workflowTasks: per(c.leaves.workflowTasks + c.parents.workflowTasks),
      activityTasks: per(c.leaves.activityTasks + c.parents.activityTasks),
    },
  };
}
