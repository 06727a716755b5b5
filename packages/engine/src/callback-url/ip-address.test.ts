import { describe, expect, it } from "vitest";
import {
  type AddressCategory,
  classifyAddress,
  ipVersion,
  isPublicUnicastAddress,
  parseAddress,
} from "./ip-address.js";

describe("classifyAddress", () => {
  const refused: Array<[string, AddressCategory]> = [
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "this-network"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "shared"],
    ["100.127.255.255", "shared"],
    ["169.254.0.1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["100.100.100.200", "metadata"],
    ["168.63.129.16", "metadata"],
    ["192.0.0.192", "metadata"],
    ["192.0.0.8", "ietf-protocol"],
    ["192.0.2.10", "documentation"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.255", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["192.88.99.1", "6to4"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.254", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["fe80::1", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fec0::1", "site-local"],
    ["fc00::1", "unique-local"],
    ["fd00::1", "unique-local"],
    ["fd00:ec2::254", "metadata"],
    ["fd00:ec2::23", "metadata"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["3fff::1", "documentation"],
    ["2001::1", "teredo"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"],
    ["2001:2::1", "ietf-protocol"],
    ["2001:10::1", "ietf-protocol"],
    ["2002:7f00:1::", "6to4"],
    ["2002:808:808::", "6to4"],
    ["100::1", "discard"],
    ["64:ff9b:1::a00:1", "nat64-local"],
    ["5f00::1", "reserved"],
    ["4000::1", "reserved"],
    ["::ffff:0:7f00:1", "reserved"], // IPv4-translated (RFC 2765), outside 2000::/3
    // Embedded IPv4, judged by the IPv4 address.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:a9fe:a9fe", "metadata"],
    ["::ffff:0.0.0.0", "unspecified"],
    ["::127.0.0.1", "loopback"],
    ["::7f00:1", "loopback"],
    ["::a00:1", "private"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
  ];

  it.each(refused)("%s is %s", (ip, category) => {
    expect(classifyAddress(ip)).toBe(category);
    expect(isPublicUnicastAddress(ip)).toBe(false);
  });

  const publicAddresses = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "100.63.255.255", // just below CGNAT
    "100.128.0.0", // just above CGNAT
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.1",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2606:4700::1111",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2a00:1450:4001:82a::200e",
    "2001:200::1", // just past 2001::/23
    "3ffe::1", // below 3fff::/20
    "::ffff:8.8.8.8",
    "::ffff:808:808",
    "64:ff9b::808:808",
  ];

  it.each(publicAddresses)("%s is public", (ip) => {
    expect(classifyAddress(ip)).toBe("public");
    expect(isPublicUnicastAddress(ip)).toBe(true);
  });

  it.each([
    "",
    "localhost",
    "127.1",
    "2130706433",
    "0x7f000001",
    "0x7f.0.0.1",
    "010.0.0.1",
    "256.0.0.1",
    "1.2.3.4.5",
    "fe80::1%eth0",
    "::ffff:127.0.0.1%1",
    "1:2:3:4:5:6:7:8:9",
    "[127.0.0.1]",
    "example.com",
  ])("%j is invalid, never public", (ip) => {
    expect(classifyAddress(ip)).toBe("invalid");
    expect(isPublicUnicastAddress(ip)).toBe(false);
  });
});

describe("parseAddress", () => {
  it("expands every IPv6 spelling to the same 16 bytes", () => {
    const expected = parseAddress("2001:db8:0:0:0:0:0:1");
    expect(expected).toHaveLength(16);
    for (const spelling of ["2001:db8::1", "2001:DB8::0:1", "2001:0db8:0000::0001", "[2001:db8::1]"]) {
      expect(parseAddress(spelling)).toEqual(expected);
    }
  });

  it("reads a trailing dotted quad as the last 32 bits", () => {
    expect(parseAddress("::ffff:192.168.1.2")).toEqual(parseAddress("::ffff:c0a8:102"));
    expect(Array.from(parseAddress("1::2:3.4.5.6")!.subarray(10))).toEqual([0, 2, 3, 4, 5, 6]);
  });

  it("handles :: at either end", () => {
    expect(Array.from(parseAddress("1::")!)).toEqual([0, 1, ...new Array(14).fill(0)]);
    expect(Array.from(parseAddress("::2")!)).toEqual([...new Array(15).fill(0), 2]);
  });
});

describe("ipVersion", () => {
  it.each([
    ["127.0.0.1", 4],
    ["255.255.255.255", 4],
    ["::", 6],
    ["::ffff:127.0.0.1", 6],
    ["2001:DB8::1", 6],
    ["fe80::1%eth0", 6],
    ["1:2:3:4:5:6:7::", 6],
    ["127.1", 0],
    ["010.0.0.1", 0],
    ["1:2:3:4:5:6:7:8:9", 0],
    ["[::1]", 0],
    ["example.com", 0],
    ["", 0],
  ] as const)("%j is %i", (text, version) => {
    expect(ipVersion(text)).toBe(version);
  });
});
