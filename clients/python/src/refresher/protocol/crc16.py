"""CRC-16/XMODEM (polynomial 0x1021, initial value 0): how Redis Cluster maps keys to slots.

Here rather than taken from redis-py so that the protocol depends on no Redis library, as in the
Java core.
"""


def _build_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _build_table()


def crc16(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc = ((crc << 8) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]) & 0xFFFF
    return crc
