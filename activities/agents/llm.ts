/**
 * LLM agents: a model behind an OpenAI-compatible `/chat/completions` endpoint. Each step
 * is one model turn; a turn that asks for tools runs them (the host checks each against the
 * task's scope) and the next step gives the model their answers.
 *
 *   step n: messages ──POST /chat/completions (max_tokens ≤ tokens left, tools ∩ scope)──> model
 *           tool_calls? ──POST each tool url──> results appended ──> next step
 *           content?    ──> done: data = the JSON it wrote (or the text)
 */
import { z } from 'zod';
import { LlmAgentConfigSchema, type LlmAgentConfig } from '../../schemas';
import { ErrorType } from '../../core/errors';
import { usageOf } from '../../core/money';
import { AgentRetryableError, fatal } from '../errors';
import { HOST_TOOL_SPECS, runHostTool } from '../scout/host-tools';
import { createSandbox, scoutRoot, type ScoutSandbox } from '../scout/sandbox';
import { expandEnv, jsonSchemaParams, parseReply, postJson, remoteManifest } from './remote';
import type { AgentDefinition, StepReply, StepRequest } from './types';
import type { PendingToolCall } from '../role-protocol-tools';
import { applyHostAnswers, checkedRoleAnswer, roleStartMessages, roleToolDefs } from './llm-role';
import { mcpToolsForStep } from './llm-mcp';
import { defaultMcpPool, type McpPool } from './mcp-pool';

interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

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
  /** The directory the host tools (`read_file`, `grep`) are confined to. @default the tenant's scout root from env (none: the tools refuse) */
  scoutRoot?: string;
  /** The worker's MCP connections (its address policy included). @default the process's pool, strict policy */
  mcpPool?: McpPool;
}

/** An agent definition for a model behind an OpenAI-compatible endpoint. */
export function createLlmAgent(
  input: z.input<typeof LlmAgentConfigSchema>,
  env: NodeJS.ProcessEnv = process.env,
  opts: LlmAgentOptions = {},
): AgentDefinition {
  const cfg: LlmAgentConfig = LlmAgentConfigSchema.parse(input);
  const auth: Record<string, string> = cfg.apiKey ? { authorization: `Bearer ${expandEnv(cfg.apiKey, env)}` } : {};
  return {
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
      const prior = req.state as { messages?: ChatMessage[]; pendingToolCalls?: PendingToolCall[] } | undefined;
      const messages: ChatMessage[] =
        prior?.messages ??
        (role
          ? roleStartMessages(role)
          : [
              { role: 'system', content: cfg.systemPrompt },
              { role: 'user', content: brief(req) },
            ]);
      // role mode: the host's answers to the last step's calls come first, right after the calls
      const roleToolsRun =
        role && prior?.pendingToolCalls?.length ? await applyHostAnswers(cfg, role, prior.pendingToolCalls, messages, req.signal) : 0;
      if (req.reprompt) messages.push({ role: 'user', content: req.reprompt });
      const hostOffered = cfg.hostTools.filter((t) => (req.task.scope ?? []).includes(t));
      const offered = cfg.tools.filter((t) => (req.task.scope ?? []).includes(t.name) && !(hostOffered as string[]).includes(t.name));
      // MCP tools in scope (`<server>.<tool>`), listed on the worker's pooled connections
      const mcp = role
        ? undefined
        : await mcpToolsForStep(
            cfg.mcpServers,
            req.task.scope ?? [],
            opts.mcpPool ?? defaultMcpPool(),
            [...hostOffered, ...offered.map((t) => t.name)],
            req.signal,
          );
      // host tools run here, on the files of params.paths only; the sandbox refuses any other path
      const paths = Array.isArray(req.params.paths) ? req.params.paths.filter((p): p is string => typeof p === 'string') : [];
      let sandbox: ScoutSandbox | undefined;
      // the cap after routing: the agent's, the budget's, and the lower of the role's and the job's
      const maxTokens = Math.max(1, Math.min(cfg.maxTokensPerStep, req.budgetLeft.tokens ?? Infinity, req.maxOutputTokens ?? Infinity));
      const model = req.model ?? cfg.model;
      const what = `agent ${cfg.id}`;
      const answer = await postJson(
        `${cfg.baseUrl.replace(/\/$/, '')}/chat/completions`,
        {
          model,
          messages,
          max_tokens: maxTokens,
          ...(role
            ? { tools: roleToolDefs(cfg, role) }
            : offered.length + hostOffered.length + (mcp?.defs.length ?? 0)
              ? {
                  tools: [
                    ...hostOffered.map((name) => ({ type: 'function', function: { name, ...HOST_TOOL_SPECS[name] } })),
                    ...offered.map((t) => ({
                      type: 'function',
                      function: { name: t.name, description: t.description, parameters: t.parameters },
                    })),
                    ...(mcp?.defs ?? []),
                  ],
                }
              : {}),
        },
        auth,
        req.signal,
        what,
      );
      const reply = parseReply(answer, what) as {
        choices?: { message?: ChatMessage }[];
        usage?: { prompt_tokens?: number; completion_tokens?: number };
      };
      const message = reply.choices?.[0]?.message;
      if (!message) throw new AgentRetryableError(`${what} (model ${model}) sent no message`);
      const prompt = reply.usage?.prompt_tokens ?? 0;
      const completion = reply.usage?.completion_tokens ?? 0;
      const usage = {
        tokens: prompt + completion,
        costUsd: (prompt * cfg.pricing.inputPerMTok + completion * cfg.pricing.outputPerMTok) / 1e6,
        toolCalls: roleToolsRun,
      };
      messages.push({
        role: 'assistant',
        content: message.content ?? null,
        ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
      });
      if (role) {
        // the host, not the model, decides each call: every one goes back to the workflow
        const calls = message.tool_calls ?? [];
        if (calls.length) {
          const pendingToolCalls: PendingToolCall[] = calls.map((c) => ({
            id: c.id,
            name: c.function.name,
            arguments: c.function.arguments ?? '',
          }));
          return {
            done: false,
            usage,
            summary: `called ${calls.map((c) => c.function.name).join(', ')}`,
            state: { messages, pendingToolCalls },
            channelsHit: [model],
          };
        }
        const { data, summary } = checkedRoleAnswer(message.content ?? '', role, req.attempt, usage);
        return { done: true, usage, summary, data, confidence: 0.8, state: { messages }, channelsHit: [model] };
      }
      if (message.tool_calls?.length) {
        for (const call of message.tool_calls) {
          const host = hostOffered.find((t) => t === call.function.name);
          const tool = offered.find((t) => t.name === call.function.name);
          const mcpTool = mcp?.scopeName(call.function.name);
          // the host checks, not the model: a tool outside the task's scope is never called
          if (!tool && !host && !mcpTool)
            throw fatal(
              ErrorType.ToolDenied,
              `model asked for tool "${call.function.name}", which the task's scope does not allow`,
              req.attempt,
              { usage: usageOf(usage) },
            );
          let args: unknown;
          try {
            args = JSON.parse(call.function.arguments || '{}');
          } catch {
            args = { raw: call.function.arguments };
          }
          let text: string;
          if (host) {
            text = paths.length
              ? await runHostTool((sandbox ??= createSandbox(opts.scoutRoot ?? scoutRoot(env, req.tenant), paths)), host, args)
              : `error: ${host} has no scope (the task's params.paths is empty)`;
          } else if (mcpTool) {
            text = await mcp!.call(call.function.name, args as Record<string, unknown>, req.signal);
          } else {
            text = (await postJson(tool!.url, args, {}, req.signal, `tool ${tool!.name} of ${what}`)).text;
          }
          messages.push({ role: 'tool', tool_call_id: call.id, content: text.slice(0, 20_000) });
          usage.toolCalls++;
        }
        const names = message.tool_calls.map((c) => mcp?.scopeName(c.function.name) ?? c.function.name);
        return { done: false, usage, summary: `called ${names.join(', ')}`, state: { messages }, channelsHit: names, tools: names };
      }
      const content = message.content ?? '';
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
