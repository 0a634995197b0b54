"""The broker's end of the benches' `socket` stand-ins on the device twin (bench_wifi_twin.py,
bench_update_twin.py): MicroPython source each stand-in carries onto the twin's flash."""
# The far end of the benches' socket stand-ins (bench_wifi_twin.py, bench_update_twin.py): a TCP socket
# (BrokerEnd) whose far end takes what the board sends as MQTT 3.1.1 packets and answers as a broker
# would (CONNACK, SUBACK, PUBACK, PINGRESP). MicroPython source, put on the twin's flash as part of each
# stand-in; answer_packets' on_publish(topic, sent, start, end) hears each PUBLISH's payload.
BROKER_ANSWERS = """\
import errno, io
AF_INET = 2
SOCK_STREAM = 1
def getaddrinfo(host, port, *args):
    return [(AF_INET, SOCK_STREAM, 0, "", (host, port))]
class BrokerEnd(io.IOBase):
    def __init__(self, af=AF_INET, kind=SOCK_STREAM, *args):
        self.sent = bytearray()      # from the board, not yet answered
        self.answer = bytearray()    # to the board
    def setblocking(self, flag):
        pass
    def connect(self, address):
        raise OSError(errno.EINPROGRESS)
    def ioctl(self, request, arg):
        if request == 3:             # MP_STREAM_POLL: always writable, readable with an answer
            return arg & (4 | (1 if self.answer else 0))
        return 0
    def write(self, data):
        self.sent += data
        answer_packets(self)
        return len(data)
    def readinto(self, buf, size=None):
        answer = self.answer
        if not answer:
            return None
        n = min(len(buf), len(answer))
        buf[:n] = answer[:n]
        self.answer = answer[n:]
        return n
    def close(self):
        pass
def answer_packets(sock, on_publish=None):
    sent = sock.sent
    while len(sent) >= 2:
        size, shift, at = 0, 0, 1
        while at < len(sent):
            size |= (sent[at] & 127) << shift
            at += 1
            if not sent[at - 1] & 128:
                break
            shift += 7
        end = at + size
        if end > len(sent):
            break
        kind = sent[0] >> 4
        if kind == 1:
            sock.answer += b"\\x20\\x02\\x00\\x00"
        elif kind == 8:
            sock.answer += b"\\x90\\x04" + sent[at:at + 2] + b"\\x01\\x01"
        elif kind == 3:
            topic_end = at + 2 + (sent[at] << 8 | sent[at + 1])
            start = topic_end
            if sent[0] & 6:
                sock.answer += b"\\x40\\x02" + sent[topic_end:topic_end + 2]
                start += 2
            if on_publish is not None:
                on_publish(bytes(sent[at + 2:topic_end]), sent, start, end)
        elif kind == 12:
            sock.answer += b"\\xd0\\x00"
        sent = sent[end:]
    sock.sent = sent
"""

