/** The parser ships no types: what the metrics test reads of its output. */
declare module 'parse-prometheus-text-format' {
  interface ParsedSample {
    labels?: Record<string, string>;
    value?: string;
    count?: string;
    sum?: string;
    buckets?: Record<string, string>;
  }
  interface ParsedFamily {
    name: string;
    help: string;
    type: string;
    metrics: ParsedSample[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
