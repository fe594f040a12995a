// Prints a Prometheus rule file with one recording rule per Grafana panel query of
// observability/grafana/*.json, so `promtool check rules` parses every panel's PromQL too.
// Grafana's variables become what they stand for at query time.
import fs from 'node:fs';
import path from 'node:path';

const dir = path.join(import.meta.dirname, '..', 'observability', 'grafana');
const groups = fs
  .readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .map((file) => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const rules = dashboard.panels.flatMap((panel) =>
      panel.targets.map((target) => ({
        record: `dashboard_${dashboard.uid.replaceAll('-', '_')}_${panel.id}_${target.refId}`,
        expr: target.expr
          .replaceAll('$instance', '.*')
          .replaceAll('$__rate_interval', '5m')
          .replaceAll('$__range', '6h'),
      })),
    );
    return { name: `dashboard ${file}`, rules };
  });
// JSON is YAML, which promtool reads.
console.log(JSON.stringify({ groups }, null, 2));
