// A TCP forwarder, run as its own process: node tcp-forward.cjs LISTEN_HOST TARGET_HOST TARGET_PORT.
// It listens on LISTEN_HOST (a port the kernel picks, printed on stdout as one line) and pipes
// each connection to TARGET_HOST:TARGET_PORT untouched (TLS passes through). The fault suite
// puts it on the host side of a veth pair, so a replica in another network namespace can reach
// an apiserver that listens on 127.0.0.1 only; the replica's own connections cross the veth,
// where the partition drops their packets.
'use strict';
const net = require('node:net');

const [listenHost, targetHost, targetPort] = process.argv.slice(2);

const server = net.createServer((client) => {
  const upstream = net.connect(Number(targetPort), targetHost);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close).on('close', close);
  upstream.on('error', close).on('close', close);
  client.pipe(upstream);
  upstream.pipe(client);
});
server.listen(0, listenHost, () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
