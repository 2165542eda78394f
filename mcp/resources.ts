/**
 * The server's resources: finished jobs' results and the tools' references, listed a page at a
 * time. McpServer's own resources/list reads every template's list at once and drops any
 * cursor, so this server answers resources/list itself: the references on the first page, then
 * the tenant's finished jobs a page of the job listing at a time, its page token the cursor.
 *
 *   resources/list {}              ──> references + finished jobs of listing page 1, nextCursor = page token
 *   resources/list { cursor }      ──> finished jobs of the page after it, nextCursor … (none on the last)
 *   resources/read delegate://jobs/{jobId}/result · delegate://docs/tools/{name}
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, ListResourcesRequestSchema, McpError, type ListResourcesResult } from '@modelcontextprotocol/sdk/types.js';
import { resultUri } from './answers';
import { DelegateError, type DelegateBackend, type JobSummary } from './backend';
import { referenceResources, registerToolReference, type ToolReference } from './tool-reference';

/** Jobs of the listing read for one page of resources/list (the finished ones among them are listed). @default 50 */
export const RESOURCE_PAGE_SIZE = 50;

/** A finished job's result as a listed resource. */
const resultResource = (j: JobSummary) => ({
  uri: resultUri(j.jobId),
  name: `${j.jobId} result`,
  mimeType: 'application/json',
  description: `${j.pattern ?? 'job'} ${j.status ?? ''}, started ${j.startedAt}`,
});

/** One page of resources/list: the references first, then a page of the job listing's finished jobs. */
async function listPage(
  backend: DelegateBackend,
  refs: ReadonlyMap<string, ToolReference>,
  pageSize: number,
  cursor: string | undefined,
): Promise<ListResourcesResult> {
  let page: Awaited<ReturnType<DelegateBackend['list']>>;
  try {
    page = await backend.list({ limit: pageSize, pageToken: cursor });
  } catch (err) {
    // a cursor this server never gave: the spec's invalid-params error, not an empty page
    if (err instanceof DelegateError && err.status === 400) throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${err.message}`);
    throw err;
  }
  const jobs = page.jobs.filter((j) => j.state === 'completed').map(resultResource);
  return {
    resources: [...(cursor === undefined ? referenceResources(refs) : []), ...jobs],
    ...(page.nextPageToken ? { nextCursor: page.nextPageToken } : {}),
  };
}

/** Registers the job-result and tool-reference resources, and resources/list a page at a time. */
export function registerResources(
  server: McpServer,
  backend: DelegateBackend,
  refs: ReadonlyMap<string, ToolReference>,
  pageSize: number = RESOURCE_PAGE_SIZE,
): void {
  server.registerResource(
    'job-result',
    // listed by resources/list below
    new ResourceTemplate('delegate://jobs/{jobId}/result', { list: undefined }),
    {
      title: 'Job result',
      description: "A finished job's JobResult (status, output, every subtask's answer, evidence, spend) as JSON",
      mimeType: 'application/json',
    },
    async (uri, vars) => {
      const jobId = decodeURIComponent(String(vars.jobId));
      const result = await backend.result(jobId, 0);
      if (!result) throw new DelegateError(409, 'Conflict', `job "${jobId}" is still running`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(result, null, 2) }] };
    },
  );
  registerToolReference(server, refs);
  // McpServer set its own handler when the first resource registered; this one replaces it
  server.server.setRequestHandler(ListResourcesRequestSchema, (request) => listPage(backend, refs, pageSize, request.params?.cursor));
}
