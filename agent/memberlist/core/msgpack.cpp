// SPDX-License-Identifier: Apache-2.0
#include "agent/memberlist/core/msgpack.h"

namespace ingot::agent::memberlist::msgpack {

void Writer::putBig(uint64_t v, int bytes) {
  for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
    put(static_cast<uint8_t>(v >> shift));
  }
}

void Writer::mapHeader(size_t entries) {
  if (entries < 16) {
    put(static_cast<uint8_t>(0x80 | entries));
  } else if (entries <= 0xffff) {
    put(0xde);
    putBig(entries, 2);
  } else {
    put(0xdf);
    putBig(entries, 4);
  }
}

void Writer::arrayHeader(size_t entries) {
  if (entries < 16) {
    put(static_cast<uint8_t>(0x90 | entries));
  } else if (entries <= 0xffff) {
    put(0xdc);
    putBig(entries, 2);
  } else {
    put(0xdd);
    putBig(entries, 4);
  }
}

void Writer::uint(uint64_t v) {
  if (v < 0x80) {
    put(static_cast<uint8_t>(v));
  } else if (v <= 0xff) {
    put(0xcc);
    putBig(v, 1);
  } else if (v <= 0xffff) {
    put(0xcd);
    putBig(v, 2);
  } else if (v <= 0xffffffff) {
    put(0xce);
    putBig(v, 4);
  } else {
    put(0xcf);
    putBig(v, 8);
  }
}

void Writer::integer(int64_t v) {
  if (v >= 0) {
    uint(static_cast<uint64_t>(v));
  } else if (v >= -32) {
    put(static_cast<uint8_t>(v));
  } else if (v >= -128) {
    put(0xd0);
    putBig(static_cast<uint64_t>(v), 1);
  } else if (v >= -32768) {
    put(0xd1);
    putBig(static_cast<uint64_t>(v), 2);
  } else if (v >= INT32_MIN) {
    put(0xd2);
    putBig(static_cast<uint64_t>(v), 4);
  } else {
    put(0xd3);
    putBig(static_cast<uint64_t>(v), 8);
  }
}

void Writer::boolean(bool v) {
  put(v ? 0xc3 : 0xc2);
}

void Writer::nil() {
  put(0xc0);
}

void Writer::raw(std::span<const uint8_t> bytes) {
  const size_t n = bytes.size();
  if (n < 32) {
    put(static_cast<uint8_t>(0xa0 | n));
  } else if (n <= 0xffff) {
    put(0xda);
    putBig(n, 2);
  } else {
    put(0xdb);
    putBig(n, 4);
  }
  out_.insert(out_.end(), bytes.begin(), bytes.end());
}

void Writer::str(std::string_view s) {
  raw({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}

bool Value::asUint(uint64_t& out) const {
  if (kind == Kind::Uint) {
    out = u;
    return true;
  }
  if (kind == Kind::Int && i >= 0) {
    out = static_cast<uint64_t>(i);
    return true;
  }
  return false;
}

bool Value::asString(std::string& out) const {
  if (kind != Kind::Raw) {
    return false;
  }
  out.assign(reinterpret_cast<const char*>(raw.data()), raw.size());
  return true;
}

Status Reader::take(size_t n, std::span<const uint8_t>& out) {
  if (remaining() < n) {
    return Status::Incomplete;
  }
  out = in_.subspan(pos_, n);
  pos_ += n;
  return Status::Ok;
}

Status Reader::readBig(int bytes, uint64_t& out) {
  std::span<const uint8_t> b;
  Status s = take(static_cast<size_t>(bytes), b);
  if (s != Status::Ok) {
    return s;
  }
  out = 0;
  for (uint8_t x : b) {
    out = (out << 8) | x;
  }
  return Status::Ok;
}

Status Reader::rawOf(size_t len, Value& v) {
  v.kind = Kind::Raw;
  if (len > max_raw_) {
    return Status::Invalid;
  }
  return take(len, v.raw);
}

namespace {

int64_t signExtend(uint64_t v, int bytes) {
  const int shift = 64 - bytes * 8;
  return static_cast<int64_t>(v << shift) >> shift;
}

}  // namespace

// fixed decodes the tags from 0xc0 up that carry an explicit size.
Status Reader::fixed(uint8_t tag, Value& v) {
  uint64_t n = 0;
  Status s = Status::Ok;
  switch (tag) {
    case 0xc0:
      v.kind = Kind::Nil;
      return Status::Ok;
    case 0xc2:
    case 0xc3:
      v.kind = Kind::Bool;
      v.b = tag == 0xc3;
      return Status::Ok;
    case 0xc4:
    case 0xc5:
    case 0xc6:  // bin 8/16/32
      if ((s = readBig(1 << (tag - 0xc4), n)) != Status::Ok) {
        return s;
      }
      return rawOf(n, v);
    case 0xd9:
    case 0xda:
    case 0xdb:  // str 8/16/32
      if ((s = readBig(1 << (tag - 0xd9), n)) != Status::Ok) {
        return s;
      }
      return rawOf(n, v);
    case 0xca:
    case 0xcb:  // float 32/64: kept opaque
      v.kind = Kind::Float;
      return take(tag == 0xca ? 4 : 8, v.raw);
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf:
      v.kind = Kind::Uint;
      return readBig(1 << (tag - 0xcc), v.u);
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3:
      if ((s = readBig(1 << (tag - 0xd0), n)) != Status::Ok) {
        return s;
      }
      v.kind = Kind::Int;
      v.i = signExtend(n, 1 << (tag - 0xd0));
      return Status::Ok;
    case 0xdc:
    case 0xdd:
      if ((s = readBig(tag == 0xdc ? 2 : 4, n)) != Status::Ok) {
        return s;
      }
      v.kind = Kind::Array;
      v.count = static_cast<uint32_t>(n);
      return Status::Ok;
    case 0xde:
    case 0xdf:
      if ((s = readBig(tag == 0xde ? 2 : 4, n)) != Status::Ok) {
        return s;
      }
      v.kind = Kind::Map;
      v.count = static_cast<uint32_t>(n);
      return Status::Ok;
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:  // fixext 1..16
      v.kind = Kind::Ext;
      return take((size_t{1} << (tag - 0xd4)) + 1, v.raw);
    case 0xc7:
    case 0xc8:
    case 0xc9:  // ext 8/16/32
      if ((s = readBig(1 << (tag - 0xc7), n)) != Status::Ok) {
        return s;
      }
      v.kind = Kind::Ext;
      if (n > max_raw_) {
        return Status::Invalid;
      }
      return take(n + 1, v.raw);
    default:
      return Status::Invalid;  // 0xc1 is never used
  }
}

Status Reader::next(Value& v) {
  v = Value{};
  std::span<const uint8_t> tag_span;
  Status s = take(1, tag_span);
  if (s != Status::Ok) {
    return s;
  }
  const uint8_t tag = tag_span[0];
  if (tag < 0x80) {
    v.kind = Kind::Uint;
    v.u = tag;
    return Status::Ok;
  }
  if (tag >= 0xe0) {
    v.kind = Kind::Int;
    v.i = static_cast<int8_t>(tag);
    return Status::Ok;
  }
  if (tag <= 0x8f || (tag >= 0x90 && tag <= 0x9f)) {
    v.kind = tag <= 0x8f ? Kind::Map : Kind::Array;
    v.count = tag & 0x0f;
    return Status::Ok;
  }
  if (tag >= 0xa0 && tag <= 0xbf) {
    return rawOf(tag & 0x1f, v);
  }
  return fixed(tag, v);
}

Status skipContainerBody(Reader& r, const Value& head) {
  if (head.kind != Kind::Array && head.kind != Kind::Map) {
    return Status::Ok;
  }
  const uint64_t items = head.kind == Kind::Map ? uint64_t{head.count} * 2 : head.count;
  // Every element takes at least one byte: a count beyond the input cannot complete here.
  for (uint64_t idx = 0; idx < items; ++idx) {
    Status s = r.skip();
    if (s != Status::Ok) {
      return s;
    }
  }
  return Status::Ok;
}

Status Reader::skip(int max_depth) {
  if (max_depth <= 0) {
    return Status::Invalid;
  }
  Value v;
  Status s = next(v);
  if (s != Status::Ok || (v.kind != Kind::Array && v.kind != Kind::Map)) {
    return s;
  }
  const uint64_t items = v.kind == Kind::Map ? uint64_t{v.count} * 2 : v.count;
  for (uint64_t idx = 0; idx < items; ++idx) {
    if ((s = skip(max_depth - 1)) != Status::Ok) {
      return s;
    }
  }
  return Status::Ok;
}

}  // namespace ingot::agent::memberlist::msgpack
