"""A TCP proxy in front of a Redis that, once armed, lets the next script call through and closes
its connection when the answer comes, instead of passing the answer on: the "sent, answer lost"
case, where Redis ran a command and its client cannot know."""

import socket
import threading


class AnswerDroppingProxy:
    def __init__(self, upstream_host: str, upstream_port: int):
        self._upstream = (upstream_host, upstream_port)
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._armed = threading.Event()
        self.dropped = 0
        self._sockets = []
        threading.Thread(target=self._accept, daemon=True).start()

    def drop_next_answer(self) -> None:
        self._armed.set()

    def close(self) -> None:
        self._server.close()
        for sock in self._sockets:
            _close(sock)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._upstream)
            self._sockets += [client, upstream]
            doomed = threading.Event()
            threading.Thread(target=self._requests, args=(client, upstream, doomed), daemon=True).start()
            threading.Thread(target=self._answers, args=(upstream, client, doomed), daemon=True).start()

    def _requests(self, client, upstream, doomed) -> None:
        while True:
            try:
                data = client.recv(65536)
            except OSError:
                return
            if not data:
                _close(upstream)
                return
            if self._armed.is_set() and b"EVAL" in data.upper():
                self._armed.clear()
                doomed.set()
            try:
                upstream.sendall(data)
            except OSError:
                return

    def _answers(self, upstream, client, doomed) -> None:
        while True:
            try:
                data = upstream.recv(65536)
            except OSError:
                return
            if not data:
                _close(client)
                return
            if doomed.is_set():
                # Redis ran it and answered; the client never hears of it.
                self.dropped += 1
                _close(client)
                _close(upstream)
                return
            try:
                client.sendall(data)
            except OSError:
                return


def _close(sock) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
