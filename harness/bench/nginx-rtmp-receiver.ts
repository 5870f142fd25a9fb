import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { NginxProcess, type NginxSetup } from '../nginx';

// A simulcast target as platforms run them: Debian's nginx with its RTMP module (libnginx-mod-rtmp),
// taking any number of publishes on one port and recording each to `records/{stream name}.flv`.
// Like real ingest servers (and node-media-server, i.e. a second Keyframe) it announces its chunk
// size to the publisher, which the restream's ffmpeg then sends in: 4096 bytes, the module's default,
// instead of RTMP's initial 128 that an `ffmpeg -listen 1` receiver leaves it at.

export const NGINX_RTMP_MODULE = '/usr/lib/nginx/modules/ngx_rtmp_module.so';
const CHUNK_SIZE = 4096;

const rtmpConfig = ({ dir, port }: { dir: string; port: number }): string => `# Written by the Keyframe benchmark (harness/bench/nginx-rtmp-receiver.ts).
load_module ${NGINX_RTMP_MODULE};
daemon off;
master_process on;
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} notice;
events {
  worker_connections 64;
}
rtmp {
  server {
    listen 127.0.0.1:${port};
    chunk_size ${CHUNK_SIZE};
    application live {
      live on;
      record all;
      record_path ${path.join(dir, 'records')};
    }
  }
}
`;

export class NginxRtmpReceiver extends NginxProcess {
  private constructor(setup: NginxSetup) {
    super(setup);
  }

  /** `rtmp://127.0.0.1:{port}/live`: a target URL, the stream key its last path element. */
  get ingestUrl(): string {
    return `rtmp://127.0.0.1:${this.port}/live`;
  }

  /** Where the publish of `streamName` is recorded. */
  recordingOf(streamName: string): string {
    return path.join(this.dir, 'records', `${streamName}.flv`);
  }

  static async start({ nginx, workDir }: { nginx: string; workDir: string }): Promise<NginxRtmpReceiver> {
    return NginxProcess.launch(undefined, (port) =>
      new NginxRtmpReceiver({
        label: `nginx-rtmp-${port}`,
        port,
        binary: nginx,
        dir: path.join(workDir, `nginx-rtmp-${process.pid}`),
        // Workers run as nobody when the benchmark is root: they write the recordings.
        prepare: (dir) => {
          mkdirSync(path.join(dir, 'records'));
          chmodSync(path.join(dir, 'records'), 0o777);
        },
        config: ({ dir, port: listenPort }) => rtmpConfig({ dir, port: listenPort }),
        readiness: 'listening',
      }),
    );
  }
}
