/** Which OTEL_* variables turn tracing on, where spans go, and under which service name. */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { startHttpCall, startTracing, tracingActive, tracingSettings } from '../../telemetry/tracing';

describe('tracingSettings', () => {
  it('is off when no variable says where spans go, or when one says not to send them', () => {
    expect(tracingSettings({}, 'svc')).toBeUndefined();
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'x', OTEL_RESOURCE_ATTRIBUTES: 'a=b' }, 'svc')).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://j:4318', OTEL_TRACES_EXPORTER: 'none' }, 'svc')).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://j:4318', OTEL_SDK_DISABLED: 'TRUE' }, 'svc')).toBeUndefined();
  });

  it('sends OTLP to the endpoint the variables name', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318/' }, 'svc')).toMatchObject({
      exporter: 'otlp',
      url: 'http://jaeger:4318/v1/traces',
      serviceName: 'svc',
    });
    // the signal's own endpoint is taken as it is, and wins
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/traces' }, 'svc')
        ?.url,
    ).toBe('http://b:9999/traces');
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' }, 'svc')?.url).toBe('http://localhost:4318/v1/traces');
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'console' }, 'svc')).toMatchObject({ exporter: 'console', url: undefined });
    expect(() => tracingSettings({ OTEL_TRACES_EXPORTER: 'zipkin' }, 'svc')).toThrow(/otlp \(HTTP\), console or none/);
  });

  it('names the service by OTEL_SERVICE_NAME, then service.name in OTEL_RESOURCE_ATTRIBUTES, then the default', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://j:4318' };
    expect(
      tracingSettings({ ...on, OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment=prod%20eu' }, 'svc'),
    ).toMatchObject({
      serviceName: 'from-attrs',
      resourceAttributes: { 'deployment.environment': 'prod eu' },
    });
    expect(
      tracingSettings({ ...on, OTEL_SERVICE_NAME: 'named', OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs' }, 'svc')?.serviceName,
    ).toBe('named');
  });
});

describe('startTracing', () => {
  it('registers nothing when off; with an exporter, client spans carry their traceparent until shutdown', async () => {
    expect(startTracing({ serviceName: 'svc', env: {} })).toBeUndefined();
    expect(tracingActive()).toBe(false);
    expect(startHttpCall('POST', 'http://a.example/x', 'agent a').headers).toEqual({});

    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({ serviceName: 'svc', env: {}, exporter })!;
    expect(() => startTracing({ serviceName: 'svc', exporter })).toThrow(/already started/);
    const call = startHttpCall('POST', 'https://user:pw@a.example/steps?key=secret', 'agent a');
    call.end(503);
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('POST agent a');
    expect(call.headers.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    // no credentials or query in the recorded URL: they may hold keys
    expect(span.attributes).toMatchObject({
      'url.full': 'https://a.example/steps',
      'server.port': 443,
      'http.response.status_code': 503,
      'error.type': '503',
    });
    expect(tracing.resource.attributes['service.name']).toBe('svc');
    await tracing.shutdown();
    expect(tracingActive()).toBe(false);
    expect(startHttpCall('POST', 'http://a.example/x', 'agent a').headers).toEqual({});
  });
});
