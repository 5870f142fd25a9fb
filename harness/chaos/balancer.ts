import { instanceConfig, NginxProcess } from '../nginx';

// The balancer in front of the chaos cluster's app nodes, configured as docs/scaling-out.md tells
// operators to: round robin, nothing buffered but upload chunks, and an idempotent request (GET,
// HEAD, an upload chunk) a node cannot answer (refused, timed out, 502/503) tried once on the other. max_fails=0: nginx would count every 503
// as a failed node, and when a dependency all nodes share is down (PostgreSQL restarting) it would
// mark every node down and answer 502 "no live upstreams" instead of the nodes' 503 + Retry-After.
// The fault runs measure what clients see through exactly that configuration.

const balancerConfig = ({ upstreams, listen, accessLog }: { upstreams: string[]; listen: string; accessLog: string }) => `
    log_format timed '$msec $status $request_time "$request_method $uri" $upstream_addr $upstream_status';
    access_log ${accessLog} timed;

    upstream keyframe {
        ${upstreams.map((upstream) => `server ${upstream} max_fails=0;`).join('\n        ')}
        keepalive 32;
    }

    server {
        listen ${listen};
        client_max_body_size 0;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $http_host;
        proxy_buffering off;
        proxy_request_buffering off;
        proxy_connect_timeout 2s;
        proxy_read_timeout 300s;
        proxy_next_upstream error timeout http_502 http_503;
        proxy_next_upstream_tries 2;

        location / {
            proxy_pass http://keyframe;
        }
        # A chunk sent again appends nothing twice, so a chunk a node cannot take (503: its disk
        # full, a dependency down) goes to the other node; nginx can resend only a body it kept.
        location /upload/ {
            proxy_pass http://keyframe;
            proxy_request_buffering on;
            proxy_next_upstream error timeout http_502 http_503 non_idempotent;
        }
    }
`;

export class ChaosBalancer extends NginxProcess {
  static async start({ upstreamPorts, label }: { upstreamPorts: number[]; label: string }): Promise<ChaosBalancer> {
    return NginxProcess.launch(undefined, (port) => new ChaosBalancer({
      label,
      port,
      readiness: 'listening',
      config: ({ listen, inDir }) =>
        instanceConfig(balancerConfig({ upstreams: upstreamPorts.map((upstream) => `127.0.0.1:${upstream}`), listen, accessLog: inDir('access.log') }), inDir, 2048),
    }));
  }
}
