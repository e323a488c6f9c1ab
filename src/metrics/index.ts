export { GatewayMetrics, type Exposition, type MetricSources } from './gateway-metrics.js';
