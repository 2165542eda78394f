/** Versions of the Temporal parts that `npm run cluster` builds and docker-compose.yml pulls: one place, checked by a test. */

/** The Temporal server (and its SQL tool): `go install go.temporal.io/server/cmd/server@…`, image `temporalio/server:…`. */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
/** The Temporal Web UI server: `github.com/temporalio/ui-server/v2`, image `temporalio/ui:…`. */
export const TEMPORAL_UI_VERSION = 'v2.42.1';
