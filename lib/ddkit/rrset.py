"""The record of a provider whose record is an RRset (the addresses of a name and type, kept
together): the five record functions such a provider takes as its own. ddkit.rest does the work,
loaded only on a request; a run with nothing to send loads this small module alone."""


def records(read=True, named=True):
    """The five record functions (find, read, create, update, delete) of a provider whose record is
    an RRset (ddkit.rest's, loaded only on a request), for its module to take as its own. read False:
    a write keeps what it does not send, so a record without lines is not read before an update
    unless asked (held); named False: a zone's id is not its name, so ids never go stale by it."""
    def find_record(job, zone_id, strict=False):
        from ddkit import rest
        return rest.find_rrset_record(job, zone_id, strict)

    def read_record(job, zone_id, record_id, held=False):
        from ddkit import rest
        return rest.read_rrset_record(job, zone_id, record_id, read=read or held, named=named)

    def create_record(job, zone_id, ip):
        from ddkit import rest
        return rest.create_rrset_record(job, zone_id, ip)

    def update_record(job, zone_id, record, ip):
        from ddkit import rest
        return rest.update_rrset_record(job, zone_id, record, ip)

    def delete_record(job, zone_id, record):
        from ddkit import rest
        return rest.delete_rrset_record(job, zone_id, record)

    return find_record, read_record, create_record, update_record, delete_record
