/* The simulated host's properties as the machine description (mcio_machine_sim.h). */
#include "mcio_machine_sim.h"

#include <simgrid/host.h>
#include <simgrid/zone.h>
#include <stdlib.h>

static long long host_number(const char *name, long long none)
{
    const char *v = sg_host_get_property_value(sg_host_self(), name);
    if (!v || !*v)
        return none;
    char *end;
    long long x = strtoll(v, &end, 10);
    return *end || x < 0 ? none : x;
}

int64_t mcio_sim_node_memory(void)
{
    return (int64_t)host_number("mcio_memory", -1);
}

int mcio_sim_node_sockets(void)
{
    long long s = host_number("mcio_sockets", 1);
    return s >= 1 && s <= 1024 ? (int)s : 1;
}

const char *mcio_sim_topology_file(void)
{
    const char *v = sg_zone_get_property_value(sg_zone_get_root(), "mcio_topology_file");
    return v && *v ? v : NULL;
}
