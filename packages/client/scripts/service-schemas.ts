/**
 * The service types the client uses, named once: each is a zod schema of `schemas/` read as
 * the API reads it (`input`: a request body as a caller writes it, defaults left out) or as it
 * answers (`output`). In the repository the client infers its types from these schemas
 * (`src/service-types.ts`, type imports only); the build turns the same table into JSON Schema
 * and then into plain TypeScript for the package (`scripts/build.ts`).
 */
import {
  AgentDetailSchema,
  AgentManifestSchema,
  BudgetSchema,
  BudgetTopUpSchema,
  JobListItemSchema,
  JobOutcomeSchema,
  JobPageSchema,
  JobResultSchema,
  JobSpecSchema,
  JobViewSchema,
  LedgerSchema,
  PatternSchema,
  ReportPageSchema,
  ReportSummarySchema,
  TaskResultSchema,
  TypedJobEventSchema,
} from '../../../schemas';
import { ResearchSubtaskInputSchema, ResearchSubtaskOutputSchema } from '../../../schemas/research-contract';
import { ScoutReportSchema, ScoutRequestSchema } from '../../../schemas/scout';
import { DecisionSchema, InboxItemSchema } from '../../../schemas/approval';
import { DoctorFixSchema, DoctorReportSchema } from '../../../schemas/doctor';
import { JobComparisonSchema, ReplayRequestSchema } from '../../../schemas/replay';

/** How a schema is read: a request the caller writes, or an answer the API sends. */
export type Io = 'input' | 'output';

const input = <S>(schema: S) => ({ schema, io: 'input' as const });
const output = <S>(schema: S) => ({ schema, io: 'output' as const });

/** Every service type of the client: its name in the package → its schema and how it is read. */
export const SERVICE_SCHEMAS = {
  AgentDetail: output(AgentDetailSchema),
  AgentManifest: output(AgentManifestSchema),
  ApprovalDecision: input(DecisionSchema),
  BudgetInput: input(BudgetSchema),
  BudgetTopUp: input(BudgetTopUpSchema),
  DoctorFix: output(DoctorFixSchema),
  DoctorReport: output(DoctorReportSchema),
  InboxItem: output(InboxItemSchema),
  JobComparison: output(JobComparisonSchema),
  JobEvent: output(TypedJobEventSchema),
  JobListItem: output(JobListItemSchema),
  JobOutcome: output(JobOutcomeSchema),
  JobPage: output(JobPageSchema),
  JobResult: output(JobResultSchema),
  JobSpecInput: input(JobSpecSchema),
  JobView: output(JobViewSchema),
  Ledger: output(LedgerSchema),
  Pattern: output(PatternSchema),
  ReportPage: output(ReportPageSchema),
  ReplayRequest: input(ReplayRequestSchema),
  ReportSummary: output(ReportSummarySchema),
  ResearchSubtaskRequest: input(ResearchSubtaskInputSchema),
  ResearchSubtaskOutput: output(ResearchSubtaskOutputSchema),
  ScoutReport: output(ScoutReportSchema),
  ScoutRequest: input(ScoutRequestSchema),
  TaskResult: output(TaskResultSchema),
};
