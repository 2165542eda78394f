/**
 * LLM agents: a model on one of the AI SDK's providers (OpenAI, Anthropic, Google, any
 * OpenAI-compatible server). Each step is one streamed model turn; a turn that asks for tools
 * runs them (the host checks each against the task's scope) and the next step gives the model
 * their answers. The SDK brings the wire format; the loop, the checks and the tools stay the host's.
 *
 *   step n: messages ──streamText (max output ≤ tokens left, tools ∩ scope, no execute)──> model
 *           text deltas ──> onText · usage so far ──> onUsage
 *           tool calls? ──runTool each (scope checked first)──> results appended ──> next step
 *           ask_parent? ──(a task with allowQuestions)──> StepReply.ask: the subtask waits for the answer
 *           text?       ──> done: data = the JSON it wrote (or the text)
 *   step n+1 starts with the answer and any steering messages as a user turn (llm-human.ts).
 */
import { z } from 'zod';
import { LlmAgentConfigSchema, type LlmAgentConfig } from '../../schemas';
import { ErrorType } from '../../core/errors';
import { fatal } from '../errors';
import { HOST_TOOL_SPECS, runHostTool } from '../scout/host-tools';
import { createSandbox, type ScoutSandbox } from '../scout/sandbox';
import type { ScoutRootFor } from '../scout/scout-root';
import { jsonSchemaParams, postJson, remoteManifest, serviceOf } from './remote';
import { pacedCall, type AgentDefinition, type StepReply, type StepRequest } from './types';
import type { StepAsk } from '../../contracts/step';
import type { PendingToolCall } from '../../contracts/role';
import {
  applyHostAnswers,
  checkedRoleAnswer,
  hasTask,
  roleMcpScope,
  roleStartMessages,
  roleToolDefs,
  structuredOutputOf,
} from './llm-role';
import { ASK_PARENT, ASK_PARENT_DEF, askOf, humanTurns, type AskedState } from './llm-human';
import { mcpToolsForStep } from './llm-mcp';
import { defaultMcpPool, type McpPool } from './mcp-pool';
import { executeTool } from '../../telemetry/genai';
import { languageModel } from './llm-model';
import { costOf, parseArgs, promptTokens, tracedTurn, type ChatMessage, type ToolDef, type TurnTokens } from './llm-provider';

/** The first user message: the question, with the context the host gathered. */
function brief(req: StepRequest): string {
  const parts = [req.task.question];
  if (req.task.constraints?.length) parts.push(`Constraints:\n- ${req.task.constraints.join('\n- ')}`);
  if (req.task.contextSeed?.length)
    parts.push(
      `Evidence already gathered (do not search for it again):\n${req.task.contextSeed.map((e) => `[${e.id}] ${e.snippet}`).join('\n')}`,
    );
  if (req.previous) parts.push(`Result of the previous stage:\n${JSON.stringify(req.previous.data)}`);
  if (req.task.outputSchema) parts.push(`Answer with JSON only, satisfying this JSON Schema:\n${JSON.stringify(req.task.outputSchema)}`);
  else if (req.task.research?.outputFormat === 'json') parts.push('Answer with JSON only.');
  // a research-contract subtask: the host checks the summary's length and re-prompts once
  if (req.task.research) parts.push('Summarise what you found in 3 to 6 sentences.');
  return parts.join('\n\n');
}

/** Options of `createLlmAgent`. */
export interface LlmAgentOptions {
  /** The directory the host tools (`read_file`, `grep`) are confined to, whatever the tenant. @default `scoutRootFor`'s */
  scoutRoot?: string;
  /** The tenant's directory the host tools are confined to (scout-root.ts, from the configuration). @default none: the tools refuse */
  scoutRootFor?: ScoutRootFor;
  /** The worker's MCP connections (its address policy included). @default the process's pool, strict policy */
  mcpPool?: McpPool;
}

/** Runs one tool call the host has let through: its answer's text. The one place tool kinds are dispatched. */
export type ToolRunner = (name: string, args: unknown, signal: AbortSignal) => Promise<string>;

/** An agent definition for a model on one of the AI SDK's providers. */
export function createLlmAgent(
  input: z.input<typeof LlmAgentConfigSchema>,
  env: NodeJS.ProcessEnv = process.env,
  opts: LlmAgentOptions = {},
): AgentDefinition {
  const cfg: LlmAgentConfig = LlmAgentConfigSchema.parse(input);
  // the split beside the total: the provider's counts (cached input is part of input)
  const usageOf = (t: TurnTokens, toolCalls: number) => ({
    tokens: t.input + t.output,
    inputTokens: t.input,
    outputTokens: t.output,
    cachedInputTokens: t.cached,
    costUsd: costOf(cfg.pricing, t),
    toolCalls,
  });
  return {
    service: serviceOf(cfg),
    manifest: remoteManifest('llm', {
      ...cfg,
      tools: [
        ...cfg.hostTools,
        ...cfg.tools.map((t) => t.name),
        ...cfg.mcpServers.flatMap((m) => (m.tools ?? []).map((t) => `${m.id}.${t}`)),
      ],
    }),
    toolDescriptions: Object.fromEntries(cfg.tools.filter((t) => t.description).map((t) => [t.name, t.description])),
    params: jsonSchemaParams(cfg.inputSchema),
    async step(req): Promise<StepReply> {
      const { role } = req;
      const prior = req.state as ({ messages?: ChatMessage[]; pendingToolCalls?: PendingToolCall[] } & AskedState) | undefined;
      const first = !prior?.messages;
      const messages: ChatMessage[] =
        prior?.messages ??
        (role
          ? roleStartMessages(role)
          : [
              { role: 'system', content: cfg.systemPrompt },
              { role: 'user', content: brief(req) },
            ]);
      // a role's first request is the same bytes for every task up to here (a steering message comes after)
      const stableEnd = messages.length - 1;
      const scope = req.task.scope ?? [];
      // a task that allows questions offers ask_parent (a role asks through need-more-information instead)
      const asking = !role && req.task.allowQuestions === true;
      const hostOffered = cfg.hostTools.filter((t) => scope.includes(t));
      const offered = cfg.tools.filter(
        (t) => scope.includes(t.name) && !(hostOffered as string[]).includes(t.name) && !(asking && t.name === ASK_PARENT),
      );
      // MCP tools in scope (`<server>.<tool>`), listed on the worker's pooled connections; a role's: its allowlist (a role task's scope)
      const mcp = await mcpToolsForStep(
        cfg.mcpServers,
        role ? roleMcpScope(role) : scope,
        opts.mcpPool ?? defaultMcpPool(),
        role
          ? roleToolDefs(cfg, role, [], true).map((t) => t.function.name)
          : [...hostOffered, ...offered.map((t) => t.name), ...(asking ? [ASK_PARENT] : [])],
        req.signal,
      );
      // role mode: the host's answers to the last step's calls come first, right after the calls
      const roleToolsRun =
        role && prior?.pendingToolCalls?.length
          ? await applyHostAnswers(cfg, role, prior.pendingToolCalls, messages, req.signal, (name, args, signal) => {
              const modelName = mcp.modelName(name);
              return modelName ? mcp.call(modelName, args as Record<string, unknown>, signal) : undefined;
            })
          : [];
      // the answer to the question the last step asked, and the steering messages since: a user turn
      // (a role's answer comes in the host's re-prompt)
      messages.push(...humanTurns(role ? undefined : prior?.askedCall, role ? undefined : req.answer, req.messages));
      if (req.reprompt) messages.push({ role: 'user', content: req.reprompt });
      // host tools run here, on the files of params.paths only; the sandbox refuses any other path
      const paths = Array.isArray(req.params.paths) ? req.params.paths.filter((p): p is string => typeof p === 'string') : [];
      let sandbox: ScoutSandbox | undefined;
      const runTool: ToolRunner = async (name, args, signal) => {
        const host = hostOffered.find((t) => t === name);
        if (host)
          return paths.length
            ? runHostTool((sandbox ??= createSandbox(opts.scoutRoot ?? opts.scoutRootFor?.(req.tenant), paths)), host, args)
            : `error: ${host} has no scope (the task's params.paths is empty)`;
        if (mcp.scopeName(name)) return mcp.call(name, args as Record<string, unknown>, signal);
        const tool = offered.find((t) => t.name === name)!;
        return (await postJson(tool.url, args, {}, signal, `tool ${tool.name} of ${what}`)).text;
      };
      // the cap after routing: the agent's, the budget's, and the lower of the role's and the job's
      const maxTokens = Math.max(1, Math.min(cfg.maxTokensPerStep, req.budgetLeft.tokens ?? Infinity, req.maxOutputTokens ?? Infinity));
      const model = req.model ?? cfg.model;
      const what = `agent ${cfg.id}`;
      const tools: ToolDef[] = role
        ? roleToolDefs(cfg, role, mcp.defs, hasTask(messages))
        : [
            ...hostOffered.map((name) => ({ type: 'function', function: { name, ...HOST_TOOL_SPECS[name] } })),
            ...offered.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
            ...mcp.defs,
            ...(asking ? [ASK_PARENT_DEF] : []),
          ];
      // one model call through the provider's gate: a throttled call waits and goes again, and costs nothing
      const turn = await pacedCall(
        req,
        () =>
          tracedTurn(
            {
              model: languageModel(cfg, env, model, req.observeHeaders),
              messages,
              tools,
              maxOutputTokens: maxTokens,
              signal: req.signal,
              what: `${what} (model ${model})`,
              // a role's first request is the same bytes for every task: the provider may cache it (Anthropic: cache control)
              ...(role && first ? { cacheBreakpoint: stableEnd, ...(cfg.promptCacheTtl ? { cacheTtl: cfg.promptCacheTtl } : {}) } : {}),
              ...(cfg.streamEvents && req.onText ? { onText: req.onText } : {}),
              onTokens: (t) => req.onUsage?.(usageOf(t, roleToolsRun.length)),
            },
            { provider: cfg.provider, model, agentId: cfg.id },
            cfg.pricing,
          ),
        { estimateTokens: promptTokens(messages) + maxTokens, tokensOf: (r) => r.tokens.input + r.tokens.output },
      );
      const usage = usageOf(turn.tokens, roleToolsRun.length);
      const calls = turn.toolCalls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments },
      }));
      messages.push({ role: 'assistant', content: turn.text || null, ...(calls.length ? { tool_calls: calls } : {}) });
      if (role) {
        // the host, not the model, decides each call: every one goes back to the workflow
        const ran = roleToolsRun.length ? { tools: roleToolsRun } : {};
        // a final output through structured_output is checked like one in the text (the host judges its place in the protocol)
        const structured = structuredOutputOf(turn.toolCalls, messages);
        if (structured !== undefined) {
          const { data, summary } = checkedRoleAnswer(structured, role, req.attempt, usage);
          return { done: true, usage, summary, data, confidence: 0.8, state: { messages }, channelsHit: [model], ...ran };
        }
        if (turn.toolCalls.length) {
          // an MCP call goes to the host under its scope name, which the role's allowlist names
          const pendingToolCalls = turn.toolCalls.map((c) => ({ ...c, name: mcp.scopeName(c.name) ?? c.name }));
          return {
            done: false,
            usage,
            summary: `called ${pendingToolCalls.map((c) => c.name).join(', ')}`,
            state: { messages, pendingToolCalls },
            channelsHit: [model],
            ...ran,
          };
        }
        const { data, summary } = checkedRoleAnswer(turn.text, role, req.attempt, usage);
        return { done: true, usage, summary, data, confidence: 0.8, state: { messages }, channelsHit: [model], ...ran };
      }
      if (turn.toolCalls.length) {
        let ask: { call: string; ask: StepAsk } | undefined;
        for (const call of turn.toolCalls) {
          if (asking && call.name === ASK_PARENT) {
            // a question ends the step once the turn's other calls have run; its result is written with the answer
            const asked = ask
              ? { error: `error: one question at a time: ${ASK_PARENT} was already called this turn` }
              : askOf(parseArgs(call.arguments));
            if ('ask' in asked) ask = { call: call.id, ask: asked.ask };
            else messages.push({ role: 'tool', tool_call_id: call.id, content: asked.error });
            continue;
          }
          // the host checks, not the model: a tool outside the task's scope is never called
          if (!offered.some((t) => t.name === call.name) && !hostOffered.some((t) => t === call.name) && !mcp.scopeName(call.name))
            throw fatal(ErrorType.ToolDenied, `model asked for tool "${call.name}", which the task's scope does not allow`, req.attempt, {
              usage,
            });
          const type = mcp.scopeName(call.name) ? 'extension' : 'function';
          const text = await executeTool(call.name, call.id, type, () => runTool(call.name, parseArgs(call.arguments), req.signal));
          messages.push({ role: 'tool', tool_call_id: call.id, content: text.slice(0, 20_000) });
          usage.toolCalls++;
        }
        const names = turn.toolCalls.filter((c) => !(asking && c.name === ASK_PARENT)).map((c) => mcp.scopeName(c.name) ?? c.name);
        const ran = names.length ? { channelsHit: names, tools: names } : { channelsHit: [model] };
        if (ask)
          return {
            done: false,
            usage,
            summary: `asks: ${ask.ask.question.slice(0, 480)}`,
            ask: ask.ask,
            state: { messages, askedCall: ask.call } satisfies AskedState & { messages: ChatMessage[] },
            ...ran,
          };
        return { done: false, usage, summary: `called ${names.join(', ') || ASK_PARENT}`, state: { messages }, ...ran };
      }
      const content = turn.text;
      let data: unknown = content;
      if (/^\s*[[{]/.test(content)) {
        try {
          data = JSON.parse(content);
        } catch {
          /* not JSON after all: keep the text */
        }
      }
      return { done: true, usage, summary: content.slice(0, 500), data, confidence: 0.8, state: { messages }, channelsHit: [model] };
    },
  };
}
