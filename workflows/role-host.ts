/**
 * The host side of a role subtask: resolves the role, answers the child's protocol calls
 * between steps (the rules are role-protocol.ts), and reports what it observed.
 *
 *   resolveRole ──> step ──pendingToolCalls──> judge each call ──> answers (+ loadSkills) ──> next step
 *                   step ──done──> judgeFinal: too early? one re-prompt, then invalid_output
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AgentStepOutput, PreviousStage } from '../contracts/step';
import type { PendingToolCall, ProtocolState, RoleHostCarry, RoleStepContext, ToolAnswer } from '../contracts/role';
import type { AgentManifest, Role, RoleReport, TaskResult, TaskSpec } from '../schemas';
import { NON_RETRYABLE_ERROR_TYPES } from '../core/errors';
import { allowedKinds, dynamicTask, judgeCall, judgeFinal, newProtocolState, type ProtocolRules } from './role-protocol';
import { lowestCap } from '../core/role-limits';

const { resolveRole, loadSkills } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES },
});

/** What the loop does after a role step. */
export type RoleNext =
  { kind: 'go' } | { kind: 'reprompt'; message: string } | { kind: 'fail'; reason: 'tool_denied' | 'invalid_output'; message: string };

/** The model and cap the job handed the subtask at its start, and a pipeline's previous stage. */
export interface RoleRouting {
  model?: string;
  maxOutputTokens?: number;
  previous?: PreviousStage;
}

/** One role child's host: the protocol state, the answers for the next step, the report. */
export class RoleHost {
  private answers: ToolAnswer[] | undefined;
  private finalReprompted: boolean;
  private readonly protocol: ProtocolState;
  private readonly rules: ProtocolRules;

  private constructor(
    private readonly task: TaskSpec,
    readonly role: Role,
    private readonly routing: RoleRouting,
    carry?: RoleHostCarry,
    readonly manifest?: AgentManifest,
  ) {
    this.protocol = carry?.protocol ?? newProtocolState();
    this.answers = carry?.answers;
    this.finalReprompted = carry?.finalReprompted ?? false;
    this.rules = { requiredSkills: role.requiredSkills, tools: role.tools };
  }

  /** The host of a role task: its role resolved by an activity, or restored from the previous run. */
  static async open(task: TaskSpec, routing: RoleRouting, carry?: RoleHostCarry): Promise<RoleHost> {
    if (carry) return new RoleHost(task, carry.role, routing, carry);
    const { role, manifest } = await resolveRole({ role: task.role ?? '' });
    return new RoleHost(task, role, routing, undefined, manifest);
  }

  /** The output-token cap after routing: the lower of the role's and the job's. */
  get maxOutputTokens(): number {
    return lowestCap(this.role.maxOutputTokens, this.routing.maxOutputTokens) ?? this.role.maxOutputTokens;
  }

  /** What the next step carries: the stable role policy, the output rules, the answers. */
  stepFields(): { role: RoleStepContext; model?: string; maxOutputTokens: number } {
    const role: RoleStepContext = {
      id: this.role.id,
      persona: this.role.persona,
      tools: this.role.tools,
      allowedKinds: allowedKinds(this.task, this.role),
      ...(this.task.subject ? { subject: this.task.subject } : {}),
      ...(this.answers ? { answers: this.answers } : {}),
    };
    return { role, ...(this.routing.model ? { model: this.routing.model } : {}), maxOutputTokens: this.maxOutputTokens };
  }

  /** Judges a completed step: answers its calls for the next step, or checks its final output's place in the protocol. */
  async afterStep(out: AgentStepOutput): Promise<RoleNext> {
    const pending = (out.state as { pendingToolCalls?: PendingToolCall[] } | undefined)?.pendingToolCalls ?? [];
    this.answers = undefined;
    if (out.done) {
      const early = judgeFinal(this.protocol, this.rules);
      if (!early) return { kind: 'go' };
      if (this.finalReprompted) return { kind: 'fail', reason: 'invalid_output', message: `protocol: ${early}` };
      this.finalReprompted = true;
      return { kind: 'reprompt', message: `Protocol error: ${early}. Follow the protocol, then answer again.` };
    }
    const answers = new Map<string, ToolAnswer>();
    const skills: { call: PendingToolCall; skill: string }[] = [];
    for (const call of pending) {
      const v = judgeCall(this.protocol, call, this.rules);
      if (v.kind === 'denied') return { kind: 'fail', reason: 'tool_denied', message: `role "${this.role.id}": ${v.message}` };
      if (v.kind === 'bootstrap')
        answers.set(call.id, { id: call.id, content: JSON.stringify(dynamicTask(this.task, this.role, this.routing.previous)) });
      else if (v.kind === 'skill') skills.push({ call, skill: v.skill });
      else if (v.kind === 'run') answers.set(call.id, { id: call.id, run: true });
      else answers.set(call.id, { id: call.id, content: `error: ${v.message}` });
    }
    if (skills.length) {
      const texts = await loadSkills({ ids: [...new Set(skills.map((s) => s.skill))] });
      for (const { call, skill } of skills) {
        const doc = texts.find((t) => t.id === skill);
        if (doc?.text !== undefined) answers.set(call.id, { id: call.id, content: `# ${doc.title ?? skill}\n\n${doc.text}` });
        else {
          // a load that failed does not count as loaded
          this.protocol.loaded = this.protocol.loaded.filter((s) => s !== skill);
          this.protocol.errors.push(`load_skill: skill "${skill}" could not be loaded`);
          answers.set(call.id, { id: call.id, content: `error: skill "${skill}" could not be loaded` });
        }
      }
    }
    this.answers = pending.map((c) => answers.get(c.id)!);
    return { kind: 'go' };
  }

  /** The loop state to carry into the next run. */
  carry(): RoleHostCarry {
    return {
      role: this.role,
      protocol: this.protocol,
      finalReprompted: this.finalReprompted,
      ...(this.answers ? { answers: this.answers } : {}),
    };
  }

  /** Adds the protocol report to the result; a decision (decline, need more information) is partial, not success. */
  finishResult(result: TaskResult): void {
    const out = (result.data as { result?: { kind?: string; decision?: string; reason?: string } } | undefined)?.result;
    const accepted = result.failureReason === null && result.status !== 'failure';
    const report: RoleReport = {
      id: this.role.id,
      taskType: this.task.taskType ?? '',
      requiredSkills: [...this.role.requiredSkills],
      loadedSkills: [...this.protocol.loaded],
      bootstrapped: this.protocol.bootstrapped,
      protocolErrors: this.protocol.errors.slice(0, 50),
      outputKind: accepted && out ? (out.kind ?? `decision:${out.decision}`) : null,
      ...(this.routing.model ? { model: this.routing.model } : {}),
      maxOutputTokens: this.maxOutputTokens,
    };
    result.role = report;
    // a refused output or tool is not a partial answer: the host never records it as work done
    if (result.failureReason === 'invalid_output' || result.failureReason === 'tool_denied') {
      result.status = 'failure';
      result.confidence = 0;
    }
    if (accepted && out?.decision) {
      result.status = 'partial';
      if (out.reason) result.followUps = [...result.followUps, `${out.decision}: ${out.reason}`];
    }
  }
}
