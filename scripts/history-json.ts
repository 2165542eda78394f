/**
 * Workflow histories as proto JSON (the form `temporal workflow show --output json` and the
 * Web UI export) and back, read and written with the protobufjs copy that `@temporalio/proto`
 * itself was built with.
 *
 * Why not `historyFromJSON` / `historyToJSON` from @temporalio/common: while npm installs
 * several copies of protobufjs (7.x at the top for @grpc/proto-loader, one 8.x per
 * @temporalio package), common's protojson checks `type instanceof Type` against its own
 * copy, the History type comes from @temporalio/proto's copy, and both throw
 * "type must be a Type". Resolving protojson from @temporalio/proto's own folder always
 * picks the copy its types belong to, deduped or not.
 */
import type { temporal } from '@temporalio/proto';
import { createRequire } from 'node:module';
import { gunzipSync, gzipSync } from 'node:zlib';

type History = temporal.api.history.v1.IHistory;
interface ProtoJson {
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
  toJson(type: unknown, message: unknown): unknown;
}

// the @temporalio/proto the SDK uses (common's own dependency), then the protobufjs that proto uses
const requireFromCommon = createRequire(createRequire(import.meta.url).resolve('@temporalio/common'));
const protoPath = requireFromCommon.resolve('@temporalio/proto');
const proto = requireFromCommon(protoPath) as typeof import('@temporalio/proto');
const { patchProtobufRoot } = requireFromCommon(
  '@temporalio/proto/lib/patch-protobuf-root',
) as typeof import('@temporalio/proto/lib/patch-protobuf-root');
const protojson = createRequire(protoPath)('protobufjs/ext/protojson') as ProtoJson;
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);
const { History } = proto.temporal.api.history.v1;

/** A History (as `fetchHistory()` returns it) in proto JSON. */
export function historyToProtoJson(history: History): unknown {
  return protojson.toJson(historyType, History.fromObject(history));
}

/** A proto-JSON history (ours or the CLI's) as a History the replay worker takes. */
export function historyFromProtoJson(json: unknown): temporal.api.history.v1.History {
  // tolerate fields a newer server or CLI adds, as the SDK's own reader does
  return protojson.fromJson(historyType, json, { ignoreUnknownFields: true }) as temporal.api.history.v1.History;
}

/** One recorded workflow run: what it was, and its whole history in proto JSON. */
export interface RecordedRun {
  workflowId: string;
  runId: string;
  workflowType: string;
  history: unknown;
}

/** Fixture files are gzipped JSON: a scenario's runs. */
export function encodeFixture(runs: RecordedRun[]): Buffer {
  return gzipSync(JSON.stringify(runs), { level: 9 });
}

/** The runs of a fixture file's bytes. */
export function decodeFixture(bytes: Buffer): RecordedRun[] {
  return JSON.parse(gunzipSync(bytes).toString('utf8')) as RecordedRun[];
}
