// The simulated parallel file system (mcio_sim_storage.h), on SimGrid's s4u API.
#include "mcio_sim_storage.h"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct storage {
    bool loaded = false;
    int64_t stripe = 1 << 20;
    bool disk_as_cpu = false; // the root zone's mcio_disk_model is "cpu"
    std::vector<sg4::Host*> host;
    std::vector<sg4::Disk*> disk;
    int status = 0; // number of targets, or -1
};

// One per rank: SMPI privatizes the program's globals, this one included.
storage the_storage;

storage& load()
{
    storage& s = the_storage;
    if (s.loaded)
        return s;
    s.loaded = true;
    auto* root = sg4::Engine::get_instance()->get_netzone_root();
    if (const char* v = root->get_property("mcio_stripe_size"))
        if (long long x = std::atoll(v); x > 0)
            s.stripe = x;
    if (const char* v = root->get_property("mcio_disk_model"))
        s.disk_as_cpu = std::string(v) == "cpu";
    const char* names = root->get_property("mcio_storage");
    std::string list = names ? names : "";
    for (size_t at = 0; at < list.size();) {
        size_t end = list.find(',', at);
        if (end == std::string::npos)
            end = list.size();
        sg4::Host* h = sg4::Host::by_name_or_null(list.substr(at, end - at));
        if (!h || h->get_disks().empty()) {
            s.status = -1;
            return s;
        }
        s.host.push_back(h);
        s.disk.push_back(h->get_disks().front());
        at = end + 1;
    }
    s.status = (int)s.host.size();
    return s;
}

} // namespace

extern "C" int mcio_sim_storage_targets(int64_t* stripe)
{
    storage& s = load();
    *stripe = s.stripe;
    return s.status;
}

namespace {

// An access in flight: the disk requests and transfers it started.
struct pending_access {
    double start;
    std::vector<sg4::ActivityPtr> pending;
};

} // namespace

extern "C" void* mcio_sim_storage_start(int write, int64_t len, int64_t off, int64_t stripe)
{
    storage& s = load();
    if (s.status <= 0 || stripe <= 0)
        return nullptr;
    size_t n = s.host.size();
    std::vector<uint64_t> bytes(n, 0);
    auto* a = new pending_access;
    a->start = sg4::Engine::get_clock();
    for (int64_t at = off; at < off + len;) {
        int64_t stripe_end = (at / stripe + 1) * stripe;
        int64_t piece = (stripe_end < off + len ? stripe_end : off + len) - at;
        size_t t = (size_t)((at / stripe) % (int64_t)n);
        bytes[t] += (uint64_t)piece;
        if (s.disk_as_cpu)
            a->pending.push_back(
                sg4::Exec::init()->set_flops_amount((double)piece)->set_host(s.host[t])->start());
        else
            a->pending.push_back(write ? s.disk[t]->write_async((sg_size_t)piece)
                                       : s.disk[t]->read_async((sg_size_t)piece));
        at += piece;
    }
    sg4::Host* self = sg4::Host::current();
    for (size_t t = 0; t < n; t++)
        if (bytes[t] > 0 && s.host[t] != self)
            a->pending.push_back(write ? sg4::Comm::sendto_async(self, s.host[t], bytes[t])
                                       : sg4::Comm::sendto_async(s.host[t], self, bytes[t]));
    return a;
}

extern "C" double mcio_sim_storage_wait(void* handle)
{
    auto* a = static_cast<pending_access*>(handle);
    double end = a->start;
    for (auto& x : a->pending) {
        x->wait();
        end = std::max(end, x->get_finish_time());
    }
    double took = end - a->start;
    delete a;
    return took;
}

extern "C" int mcio_sim_storage_access(int write, int64_t len, int64_t off, int64_t stripe)
{
    void* a = mcio_sim_storage_start(write, len, off, stripe);
    if (!a)
        return -1;
    mcio_sim_storage_wait(a);
    return 0;
}

// ---- The memory model (mcio_sim_storage.h) ----

namespace {

// A node's collective buffers, counted across its simulated ranks: kept as the host's data (the
// host is one object for all ranks, unlike this file's globals), made at the first buffer and
// kept as long as the host.
struct node_memory {
    int64_t buffers = 0;
    int64_t left = -1; // mcio_memory, -1: unknown (no limit)
    sg4::Disk* swap = nullptr;
};

// The root zone's mcio_memory_model: 0 none, 1 paging, 2 oom.
int memory_model()
{
    const char* v = sg4::Engine::get_instance()->get_netzone_root()->get_property("mcio_memory_model");
    std::string m = v ? v : "";
    return m == "paging" ? 1 : m == "oom" ? 2 : 0;
}

node_memory& this_node()
{
    sg4::Host* h = sg4::Host::current();
    auto* m = h->get_data<node_memory>();
    if (!m) {
        m = new node_memory();
        if (const char* v = h->get_property("mcio_memory"))
            m->left = std::atoll(v);
        for (sg4::Disk* d : h->get_disks())
            if (d->get_name() == "swap")
                m->swap = d;
        h->set_data(m);
    }
    return *m;
}

} // namespace

extern "C" int mcio_sim_node_take(int64_t n)
{
    node_memory& m = this_node();
    if (memory_model() == 2 && m.left >= 0 && m.buffers + n > m.left)
        return -1;
    m.buffers += n;
    return 0;
}

extern "C" void mcio_sim_node_give(int64_t n)
{
    this_node().buffers -= n;
}

extern "C" void mcio_sim_node_page(int64_t n)
{
    node_memory& m = this_node();
    // Measured on this machine (docs/simulation.md): a buffer larger than the memory left to it,
    // touched pass after pass, pages all of its bytes each pass (the least recently used page
    // is always the next one needed), however little it exceeds the memory.
    if (n > 0 && m.swap && m.left >= 0 && m.buffers > m.left)
        m.swap->write((sg_size_t)n);
}
