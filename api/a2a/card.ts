/**
 * Delegate's A2A 1.0 agent card (`GET /.well-known/agent-card.json`): one JSON-RPC interface at
 * `<PUBLIC_URL>/a2a`, streaming and push notifications, the bearer key as its security scheme, and
 * a skill per way of delegating, each with an example a client can send as it is.
 */
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { BEARER_SCHEME } from '../auth';
import { COST_EXTENSION_URI } from '../../activities/a2a-cost';

/** Where the JSON-RPC binding is mounted. */
export const A2A_PATH = '/a2a';

/** The card's version (the API's). */
export const CARD_VERSION = '0.1.0';

/** The path of the agent card. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

const job = (spec: unknown) => JSON.stringify(spec);

const skill = (id: string, name: string, description: string, tags: string[], examples: string[]): AgentSkill => ({
  id,
  name,
  description,
  tags,
  examples,
  inputModes: ['application/json', 'text/plain'],
  outputModes: ['application/json', 'text/plain'],
  securityRequirements: [],
});

/** The skills: the three patterns, the research contract and the scout. Examples are the data part (JSON) or the text to send. */
export const SKILLS: AgentSkill[] = [
  skill(
    'fanout',
    'Fan-out',
    'Run subtasks in parallel on subagents and merge their results. Send a Delegate job spec ({"pattern":"fanout","tasks":[...]}) as a data part.',
    ['fanout', 'parallel', 'delegation'],
    [
      job({
        pattern: 'fanout',
        objective: 'compare two approaches',
        tasks: [
          { id: 'a', question: 'What are the strengths of approach A?', agent: 'echo' },
          { id: 'b', question: 'What are the strengths of approach B?', agent: 'echo' },
        ],
        budget: { costUsd: 0.5 },
      }),
    ],
  ),
  skill(
    'pipeline',
    'Pipeline',
    'Run subtasks as stages in order, each stage seeing the previous result. Send a job spec with "pattern":"pipeline" as a data part.',
    ['pipeline', 'stages'],
    [
      job({
        pattern: 'pipeline',
        tasks: [
          { id: 'draft', question: 'Draft an outline', agent: 'echo' },
          { id: 'review', question: 'Review the outline', agent: 'echo' },
        ],
      }),
    ],
  ),
  skill(
    'vote',
    'Vote',
    'Ask several voters the same question and tally their answers (majority, weighted, unanimous). Send a job spec with "pattern":"vote".',
    ['vote', 'consensus'],
    [
      job({
        pattern: 'vote',
        vote: { strategy: 'majority' },
        tasks: [1, 2, 3].map((i) => ({ id: `v${i}`, question: 'Is 17 prime? Answer yes or no.', agent: 'echo' })),
      }),
    ],
  ),
  skill(
    'research',
    'Research subtask',
    'One research subtask in the research-subtask contract (snake_case, as planners write it) as a data part, or plain text: ' +
      'a text message becomes one subtask with a default budget (600 s, $1, 100 tool calls), routed as a contract subtask that names no agent.',
    ['research', 'subtask', 'contract'],
    [
      job({
        id: 'sub_1',
        parent_id: 'plan_7',
        question: 'Which open-source vector databases support hybrid search?',
        budget: { latency_seconds: 120, cost_usd: 0.2, tool_calls: 20 },
        stop_conditions: ['evidence >= 5'],
      }),
      'Which open-source vector databases support hybrid search?',
    ],
  ),
  skill(
    'scout',
    'Code scout',
    'A read-only code scout over the tenant\'s scout root: a job spec whose task names agent "scout" with params.paths.',
    ['scout', 'code', 'read-only'],
    [
      job({
        pattern: 'fanout',
        tasks: [{ id: 's1', question: 'Where is the budget ledger implemented?', agent: 'scout', params: { paths: ['core'] } }],
      }),
    ],
  ),
];

/** The card, its URLs under `publicUrl`. */
export function agentCardOf(publicUrl: string, version: string): AgentCard {
  return {
    name: 'Delegate',
    description:
      'Delegate subtasks to subagents with budgets: fan-out, pipeline and vote jobs, research-contract subtasks and code scouts, durable on Temporal. ' +
      'The A2A task id is the job id; a message is one job, deduplicated by its messageId. A job whose subtask waits on an approval or a question is input-required; ' +
      'a message with its taskId answers it (a data part or text for a question, "approve"/"reject" for an approval).',
    supportedInterfaces: [{ url: `${publicUrl}${A2A_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version,
    documentationUrl: `${publicUrl}/docs`,
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extensions: [
        {
          uri: COST_EXTENSION_URI,
          description:
            "Cost: each task's spend is in its metadata under this URI (gen_ai.usage.cost.amount in USD, tokens, tool calls); " +
            "a budget in a message's metadata under it (gen_ai.agent.cost_budget.limit, gen_ai.agent.token_budget.limit) caps the job's budget.",
          required: false,
          params: undefined,
        },
      ],
      extendedAgentCard: false,
    },
    securitySchemes: {
      [BEARER_SCHEME]: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { description: 'A Delegate API key; the key decides the tenant', scheme: 'bearer', bearerFormat: 'API key' },
        },
      },
    },
    securityRequirements: [{ schemes: { [BEARER_SCHEME]: { list: [] } } }],
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: SKILLS,
    signatures: [],
  };
}
