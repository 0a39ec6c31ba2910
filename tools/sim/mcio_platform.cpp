// The simulated machines of docs/simulation.md: a SimGrid platform library for smpirun
// (`smpirun -platform build/smpi/libmcio-platform.so ...`), shaped by a description file that
// tools/mcio-platform.py writes and the environment variable MCIO_SIM_PLATFORM names.
//
// One cluster zone (fat-tree, torus or dragonfly, SimGrid's own models) whose leaves are
// compute nodes, storage targets (I/O nodes in the fabric, each with one disk) and spare
// leaves. A C++ platform rather than XML because XML clusters of these topologies can hold
// neither disks nor a property per host, and the memory-conscious paper's machines differ in
// memory node by node. What each leaf carries:
//   node-K   compute node K: host properties mcio_memory (bytes) and mcio_sockets
//   ost-I    storage target I: one disk, shared fairly among its requests, with a cost per
//            request modelled by a factor on the disk's bandwidth (see request_cost below)
//   spare-L  an unused leaf (the topology's leaf count is a product of its shape)
// and the root zone the properties mcio_storage (the targets, in order), mcio_stripe_size and
// mcio_topology_file (mcio's network model of the same machine, docs/topology.md).
//
// Description, one directive per line, '#' comments:
//   topology torus X,Y,Z | fattree LEVELS;DOWN,..;UP,..;COUNT,.. | dragonfly G,GL;C,CL;R,RL;N
//   link BANDWIDTH LATENCY            bytes/s and seconds, every link of the cluster
//   duplex half|full                  full: each cluster link carries BANDWIDTH each way at
//                                     once (SimGrid's SPLITDUPLEX, as InfiniBand and Ethernet
//                                     do); half (the default): both ways share it (SHARED)
//   loopback BANDWIDTH LATENCY        within a host (ranks of one node)
//   host_speed FLOPS
//   sockets S
//   disk READ_BW WRITE_BW REQUEST_COST   bytes/s, bytes/s, seconds per request
//   disk_model s19|cpu                which SimGrid model serves the targets' requests: s19
//                                     (the default), SimGrid's disk model, which updates every
//                                     request in flight at every event of the simulation; cpu,
//                                     the target host's processor at the disk's bandwidth, whose
//                                     model updates only the requests an event touches (lazily).
//                                     Both share the disk fairly with the same per-request
//                                     factor; cpu needs READ_BW = WRITE_BW (one processor)
//   stripe BYTES
//   topology_file PATH
//   node LEAF MEMORY                  compute node K is the K-th node line: MEMORY bytes left
//                                     for collective buffers (physical less the application)
//   memory_model paging BW | oom      what collective buffers beyond a node's MEMORY cost
//                                     (src/io/mcio_sim_storage.h): paging through a disk
//                                     "swap" of BW bytes/s on each compute node, or the
//                                     allocation fails as the OOM killer would end the run;
//                                     without the line, nothing (no memory model)
//   storage LEAF                      storage target I is the I-th storage line
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct description {
    std::string kind, shape;
    bool full_duplex = false;
    double link_bw = 12.5e9, link_lat = 1e-6, loop_bw = 50e9, loop_lat = 1e-8, speed = 1e10;
    int sockets = 1;
    double disk_read = 1e9, disk_write = 1e9, request_cost = 0;
    long long stripe = 1 << 20;
    std::string topology_file;
    std::map<unsigned long, std::pair<int, long long>> node;   // leaf -> (node index, memory)
    std::map<unsigned long, int> storage;                        // leaf -> target index
    int nstorage = 0;
    bool disk_as_cpu = false;
    std::string memory_model; // "", "paging" or "oom"
    double paging_bw = 0;
};

[[noreturn]] void die(const std::string& why)
{
    std::fprintf(stderr, "mcio-platform: %s\n", why.c_str());
    std::exit(2);
}

description read_description()
{
    const char* path = std::getenv("MCIO_SIM_PLATFORM");
    if (!path || !*path)
        die("MCIO_SIM_PLATFORM must name the description written by tools/mcio-platform.py");
    std::ifstream in(path);
    if (!in)
        die(std::string("cannot read ") + path);
    description d;
    std::string line;
    int nodes = 0, lineno = 0;
    while (std::getline(in, line)) {
        lineno++;
        line = line.substr(0, line.find('#'));
        std::istringstream w(line);
        std::string key;
        if (!(w >> key))
            continue;
        bool ok = true;
        if (key == "topology") {
            ok = static_cast<bool>(w >> d.kind >> d.shape);
        } else if (key == "link") {
            ok = static_cast<bool>(w >> d.link_bw >> d.link_lat);
        } else if (key == "duplex") {
            std::string v;
            ok = static_cast<bool>(w >> v) && (v == "half" || v == "full");
            d.full_duplex = v == "full";
        } else if (key == "loopback") {
            ok = static_cast<bool>(w >> d.loop_bw >> d.loop_lat);
        } else if (key == "host_speed") {
            ok = static_cast<bool>(w >> d.speed);
        } else if (key == "sockets") {
            ok = static_cast<bool>(w >> d.sockets);
        } else if (key == "disk") {
            ok = static_cast<bool>(w >> d.disk_read >> d.disk_write >> d.request_cost);
        } else if (key == "disk_model") {
            std::string v;
            ok = static_cast<bool>(w >> v) && (v == "s19" || v == "cpu");
            d.disk_as_cpu = v == "cpu";
        } else if (key == "stripe") {
            ok = static_cast<bool>(w >> d.stripe);
        } else if (key == "topology_file") {
            ok = static_cast<bool>(w >> d.topology_file);
        } else if (key == "node") {
            unsigned long leaf;
            long long mem;
            ok = static_cast<bool>(w >> leaf >> mem);
            d.node[leaf] = {nodes++, mem};
        } else if (key == "memory_model") {
            ok = static_cast<bool>(w >> d.memory_model) &&
                 (d.memory_model == "oom" ||
                  (d.memory_model == "paging" && static_cast<bool>(w >> d.paging_bw) && d.paging_bw > 0));
        } else if (key == "storage") {
            unsigned long leaf;
            ok = static_cast<bool>(w >> leaf);
            d.storage[leaf] = d.nstorage++;
        } else {
            ok = false;
        }
        if (!ok)
            die(std::string(path) + ":" + std::to_string(lineno) + ": cannot read '" + line + "'");
    }
    if (d.kind.empty() || d.node.empty() || d.nstorage == 0)
        die(std::string(path) + ": needs a topology, node lines and storage lines");
    if (d.disk_as_cpu && d.disk_read != d.disk_write)
        die(std::string(path) + ": disk_model cpu needs equal read and write bandwidths");
    return d;
}

std::vector<unsigned int> numbers(const std::string& s)
{
    std::vector<unsigned int> v;
    std::istringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
        v.push_back((unsigned int)std::stoul(item));
    return v;
}

// "a;b;c" -> {"a", "b", "c"}
std::vector<std::string> fields(const std::string& s)
{
    std::vector<std::string> v;
    std::istringstream in(s);
    std::string item;
    while (std::getline(in, item, ';'))
        v.push_back(item);
    return v;
}

// The factor SimGrid multiplies a request's bandwidth by, so that a request of `size` bytes
// at bw bytes/s costs `cost` seconds more than its bytes (measured: a factor of 2 halves the
// time): size / (bw * f) = size / bw + cost. For the disk, and for the processor that serves
// as the disk with disk_model cpu.
double request_factor(double cost, double bw, double size)
{
    return size > 0 ? 1.0 / (1.0 + cost * bw / size) : 1.0;
}

} // namespace

extern "C" void load_platform(const sg4::Engine& e);
void load_platform(const sg4::Engine&)
{
    static const description d = read_description(); // the callbacks below outlive this call
    auto* root = sg4::create_full_zone("mcio");
    auto netpoint = [](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long leaf) {
        sg4::Host* h;
        if (auto n = d.node.find(leaf); n != d.node.end()) {
            h = zone->create_host("node-" + std::to_string(n->second.first), d.speed);
            h->set_property("mcio_memory", std::to_string(n->second.second));
            h->set_property("mcio_sockets", std::to_string(d.sockets));
            if (d.memory_model == "paging")
                h->create_disk("swap", d.paging_bw, d.paging_bw)->seal();
        } else if (auto s = d.storage.find(leaf); s != d.storage.end()) {
            // With disk_model cpu the target's processor is its disk: no rank runs on a target,
            // and the storage shim (src/io/mcio_sim_storage.cpp) executes a request of n bytes
            // as n flops there, so the processor's speed is the disk's bandwidth and its factor
            // the disk's. The disk below is still made (the shim finds the targets by it).
            h = zone->create_host("ost-" + std::to_string(s->second),
                                  d.disk_as_cpu ? d.disk_write : d.speed);
            if (d.disk_as_cpu && d.request_cost > 0)
                h->set_factor_cb(
                    [](double size) { return request_factor(d.request_cost, d.disk_write, size); });
            sg4::Disk* disk = h->create_disk("disk", d.disk_read, d.disk_write);
            if (d.request_cost > 0)
                disk->set_factor_cb([](sg_size_t size, sg4::Io::OpType op) {
                    return request_factor(d.request_cost,
                                          op == sg4::Io::OpType::READ ? d.disk_read : d.disk_write,
                                          (double)size);
                });
            disk->seal();
        } else {
            h = zone->create_host("spare-" + std::to_string(leaf), d.speed);
        }
        h->seal();
        return std::make_pair<simgrid::kernel::routing::NetPoint*,
                              simgrid::kernel::routing::NetPoint*>(h->get_netpoint(), nullptr);
    };
    auto loopback = [](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long leaf) {
        return zone->create_link("loopback-" + std::to_string(leaf), d.loop_bw)
            ->set_latency(d.loop_lat)
            ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
            ->seal();
    };
    sg4::ClusterCallbacks callbacks(netpoint, loopback, {});
    auto policy = d.full_duplex ? sg4::Link::SharingPolicy::SPLITDUPLEX : sg4::Link::SharingPolicy::SHARED;
    sg4::NetZone* cluster = nullptr;
    if (d.kind == "torus") {
        std::vector<unsigned long> dims;
        for (unsigned int x : numbers(d.shape))
            dims.push_back(x);
        cluster = sg4::create_torus_zone("cluster", root, dims, callbacks, d.link_bw, d.link_lat, policy);
    } else if (d.kind == "fattree") {
        auto f = fields(d.shape);
        if (f.size() != 4)
            die("fattree: LEVELS;DOWN,..;UP,..;COUNT,..");
        sg4::FatTreeParams p((unsigned int)std::stoul(f[0]), numbers(f[1]), numbers(f[2]), numbers(f[3]));
        cluster = sg4::create_fatTree_zone("cluster", root, p, callbacks, d.link_bw, d.link_lat, policy);
    } else if (d.kind == "dragonfly") {
        auto f = fields(d.shape);
        if (f.size() != 4)
            die("dragonfly: GROUPS,LINKS;CHASSIS,LINKS;ROUTERS,LINKS;NODES");
        auto g = numbers(f[0]), c = numbers(f[1]), r = numbers(f[2]);
        sg4::DragonflyParams p({g.at(0), g.at(1)}, {c.at(0), c.at(1)}, {r.at(0), r.at(1)},
                               (unsigned int)std::stoul(f[3]));
        cluster = sg4::create_dragonfly_zone("cluster", root, p, callbacks, d.link_bw, d.link_lat, policy);
    } else {
        die("topology must be torus, fattree or dragonfly, not '" + d.kind + "'");
    }
    cluster->seal();
    std::vector<std::string> targets(d.nstorage);
    for (const auto& [leaf, i] : d.storage)
        targets[i] = "ost-" + std::to_string(i);
    std::string list;
    for (const auto& t : targets)
        list += (list.empty() ? "" : ",") + t;
    root->set_property("mcio_storage", list);
    root->set_property("mcio_stripe_size", std::to_string(d.stripe));
    if (!d.topology_file.empty())
        root->set_property("mcio_topology_file", d.topology_file);
    if (!d.memory_model.empty())
        root->set_property("mcio_memory_model", d.memory_model);
    if (d.disk_as_cpu)
        root->set_property("mcio_disk_model", "cpu");
    root->seal();
}
