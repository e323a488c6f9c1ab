import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import net, { type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

/**
 * A TCP proxy in front of a gateway, between it and a phone: it can stop passing the gateway's bytes
 * to the phone (acks lost on the way), cut every connection (a lost network) and refuse new ones
 * (a gateway that is down). With `tls`, it terminates TLS like a reverse proxy would.
 */
export class TcpProxy {
  /** Connections accepted, refused ones included. */
  accepted = 0;
  /** Date.now() of every connection attempt. */
  readonly attempts: number[] = [];
  private refusing = false;
  private holding = false;
  private readonly open = new Set<Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(target: string, options: { tls?: { key: Buffer; cert: Buffer } } = {}): Promise<TcpProxy> {
    const { hostname, port: targetPort } = new URL(target);
    // Connections arrive only after listen(), by when the proxy exists.
    const made: { proxy?: TcpProxy } = {};
    const onClient = (client: Socket): void => made.proxy?.connect(client, hostname, Number(targetPort));
    const server = options.tls ? tls.createServer({ key: options.tls.key, cert: options.tls.cert }, onClient) : net.createServer(onClient);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    made.proxy = new TcpProxy(server, (server.address() as AddressInfo).port);
    return made.proxy;
  }

  url(host = '127.0.0.1', scheme = 'http'): string {
    return `${scheme}://${host}:${this.port}`;
  }

  private connect(client: Socket, host: string, port: number): void {
    this.accepted += 1;
    this.attempts.push(Date.now());
    client.on('error', () => undefined);
    if (this.refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, host);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!this.holding) client.write(chunk);
    });
    this.open.add(client);
    client.on('close', () => this.open.delete(client));
  }

  /** Stops (true) or resumes passing the gateway's bytes to the phones; held bytes are lost. */
  holdDownstream(hold: boolean): void {
    this.holding = hold;
  }

  /** Drops every open connection without a close frame. */
  cut(): void {
    for (const s of this.open) s.destroy();
    this.open.clear();
  }

  /** New connections are closed at once (true) or passed on again (false). */
  refuse(refusing: boolean): void {
    this.refusing = refusing;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A self-signed certificate (openssl): key and certificate for a server, and the PEM file a phone can be told to trust. */
export function selfSignedCertificate(san: string): { key: Buffer; cert: Buffer; pemFile: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'vg-cert-'));
  const keyFile = path.join(dir, 'server.key');
  const pemFile = path.join(dir, 'server.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', pemFile,
    '-days', '2', '-subj', '/CN=Voice Gateway test', '-addext', `subjectAltName=${san}`], { stdio: 'pipe' });
  return { key: readFileSync(keyFile), cert: readFileSync(pemFile), pemFile };
}
