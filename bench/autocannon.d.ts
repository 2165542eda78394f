/** The slice of autocannon's API the API bench uses (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    min: number;
  }
  interface Result {
    latency: Histogram;
    requests: Histogram & { total: number };
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    duration: number;
  }
  interface RequestOptions {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (req: RequestOptions, context: Record<string, unknown>) => RequestOptions;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: RequestOptions[];
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
