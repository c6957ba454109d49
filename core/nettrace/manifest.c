/* The runtime-provider event table (see manifest.h). Layouts follow
 * dotnet/runtime src/coreclr/vm/ClrEtwAll.man; payloads are packed with no
 * alignment. */
#include "config.h"

#include <stddef.h>

#include <perfpipe/records.h>

#include "nettrace/manifest.h"

#define RT PP_PROVIDER_RUNTIME
#define RD PP_PROVIDER_RUNDOWN
#define SP PP_PROVIDER_SAMPLE_PROFILER
#define EP PP_PROVIDER_EVENTPIPE

#define CLR ",ClrInstanceID:u16"
#define METHOD_V0                                                                                  \
    "MethodID:u64,ModuleID:u64,MethodStartAddress:u64,MethodSize:u32,MethodToken:u32,MethodFlags:u32"
#define METHODV_V0 METHOD_V0 ",MethodNamespace:wstr,MethodName:wstr,MethodSignature:wstr"
#define MODULE_V0                                                                                  \
    "ModuleID:u64,AssemblyID:u64,ModuleFlags:u32,Reserved1:u32,ModuleILPath:wstr,ModuleNativePath:wstr"
#define MODULE_V2                                                                                  \
    MODULE_V0 CLR                                                                                  \
        ",ManagedPdbSignature:guid,ManagedPdbAge:u32,ManagedPdbBuildPath:wstr,NativePdbSignature:guid,NativePdbAge:u32,NativePdbBuildPath:wstr"
#define DOMMODULE_V1                                                                               \
    "ModuleID:u64,AssemblyID:u64,AppDomainID:u64,ModuleFlags:u32,Reserved1:u32,ModuleILPath:wstr,ModuleNativePath:wstr" CLR
#define ASSEMBLY_V1                                                                                \
    "AssemblyID:u64,AppDomainID:u64,BindingID:u64,AssemblyFlags:u32,FullyQualifiedAssemblyName:wstr" CLR
#define APPDOMAIN_V1 "AppDomainID:u64,AppDomainFlags:u32,AppDomainName:wstr,AppDomainIndex:u32" CLR
#define ILMAP_V0     "MethodID:u64,ReJITID:u64,MethodExtent:u8,CountOfMapEntries:u16"
#define RUNTIME_INFO                                                                               \
    "ClrInstanceID:u16,Sku:u16,BclMajorVersion:u16,BclMinorVersion:u16,BclBuildNumber:u16,BclQfeNumber:u16,VMMajorVersion:u16,VMMinorVersion:u16,VMBuildNumber:u16,VMQfeNumber:u16,StartupFlags:u32,StartupMode:u8,CommandLine:wstr,ComObjectGuid:guid,RuntimeDllPath:wstr"
#define TP_WORKER "ActiveWorkerThreadCount:u32,RetiredWorkerThreadCount:u32" CLR
#define HEAPSTATS_V1                                                                               \
    "GenerationSize0:u64,TotalPromotedSize0:u64,GenerationSize1:u64,TotalPromotedSize1:u64,GenerationSize2:u64,TotalPromotedSize2:u64,GenerationSize3:u64,TotalPromotedSize3:u64,FinalizationPromotedSize:u64,FinalizationPromotedCount:u64,PinnedObjectCount:u32,SinkBlockCount:u32,GCHandleCount:u32" CLR
#define ALLOC_V2                                                                                   \
    "AllocationAmount:u32,AllocationKind:u32,ClrInstanceID:u16,AllocationAmount64:u64,TypeID:ptr,TypeName:wstr,HeapIndex:u32"

/* Sorted by provider, event id, version (nt_manifest_find relies on it). */
static const nt_manifest_event table[] = {
    { RT, 0, 1, "GCStart", "GC/Start", "Count:u32,Reason:u32" },
    { RT, 1, 1, "GCStart_V1", "GC/Start", "Count:u32,Depth:u32,Reason:u32,Type:u32" CLR },
    { RT, 2, 1, "GCStart_V2", "GC/Start",
      "Count:u32,Depth:u32,Reason:u32,Type:u32" CLR ",ClientSequenceNumber:u64" },
    { RT, 0, 2, "GCEnd", "GC/Stop", "Count:u32,Depth:u16" },
    { RT, 1, 2, "GCEnd_V1", "GC/Stop", "Count:u32,Depth:u32" CLR },
    { RT, 0, 3, "GCRestartEEEnd", "GC/RestartEEStop", "" },
    { RT, 1, 3, "GCRestartEEEnd_V1", "GC/RestartEEStop", "ClrInstanceID:u16" },
    { RT, 1, 4, "GCHeapStats_V1", "GC/HeapStats", HEAPSTATS_V1 },
    { RT, 2, 4, "GCHeapStats_V2", "GC/HeapStats",
      HEAPSTATS_V1 ",GenerationSize4:u64,TotalPromotedSize4:u64" },
    { RT, 1, 5, "GCCreateSegment_V1", "GC/CreateSegment", "Address:u64,Size:u64,Type:u32" CLR },
    { RT, 1, 6, "GCFreeSegment_V1", "GC/FreeSegment", "Address:u64" CLR },
    { RT, 0, 7, "GCRestartEEBegin", "GC/RestartEEStart", "" },
    { RT, 1, 7, "GCRestartEEBegin_V1", "GC/RestartEEStart", "ClrInstanceID:u16" },
    { RT, 0, 8, "GCSuspendEEEnd", "GC/SuspendEEStop", "" },
    { RT, 1, 8, "GCSuspendEEEnd_V1", "GC/SuspendEEStop", "ClrInstanceID:u16" },
    { RT, 0, 9, "GCSuspendEEBegin", "GC/SuspendEEStart", "Reason:u16" },
    { RT, 1, 9, "GCSuspendEEBegin_V1", "GC/SuspendEEStart", "Reason:u32,Count:u32" CLR },
    { RT, 0, 10, "GCAllocationTick", "GC/AllocationTick",
      "AllocationAmount:u32,AllocationKind:u32" },
    { RT, 1, 10, "GCAllocationTick_V1", "GC/AllocationTick",
      "AllocationAmount:u32,AllocationKind:u32" CLR },
    { RT, 2, 10, "GCAllocationTick_V2", "GC/AllocationTick", ALLOC_V2 },
    { RT, 3, 10, "GCAllocationTick_V3", "GC/AllocationTick", ALLOC_V2 ",Address:ptr" },
    { RT, 4, 10, "GCAllocationTick_V4", "GC/AllocationTick",
      ALLOC_V2 ",Address:ptr,ObjectSize:u64" },
    { RT, 1, 11, "GCCreateConcurrentThread_V1", "GC/CreateConcurrentThread", "ClrInstanceID:u16" },
    { RT, 1, 12, "GCTerminateConcurrentThread_V1", "GC/TerminateConcurrentThread",
      "ClrInstanceID:u16" },
    { RT, 1, 13, "GCFinalizersEnd_V1", "GC/FinalizersStop", "Count:u32" CLR },
    { RT, 1, 14, "GCFinalizersBegin_V1", "GC/FinalizersStart", "ClrInstanceID:u16" },
    { RT, 0, 15, "BulkType", "Type/BulkType", "Count:u32" CLR },
    { RT, 0, 20, "GCSampledObjectAllocationHigh", "GC/SampledObjectAllocationHigh",
      "Address:ptr,TypeID:ptr,ObjectCountForTypeSample:u32,TotalSizeForTypeSample:u64" CLR },
    { RT, 0, 29, "FinalizeObject", "GC/FinalizeObject", "TypeID:ptr,ObjectID:ptr" CLR },
    { RT, 0, 30, "SetGCHandle", "GC/SetGCHandle",
      "HandleID:ptr,ObjectID:ptr,Kind:u32,Generation:u32,AppDomainID:u64" CLR },
    { RT, 0, 31, "DestroyGCHandle", "GC/DestoryGCHandle", "HandleID:ptr" CLR },
    { RT, 0, 32, "GCSampledObjectAllocationLow", "GC/SampledObjectAllocationLow",
      "Address:ptr,TypeID:ptr,ObjectCountForTypeSample:u32,TotalSizeForTypeSample:u64" CLR },
    { RT, 0, 33, "PinObjectAtGCTime", "GC/PinObjectAtGCTime",
      "HandleID:ptr,ObjectID:ptr,ObjectSize:u64,TypeName:wstr" CLR },
    { RT, 0, 35, "GCTriggered", "GC/Triggered", "Reason:u32" CLR },
    { RT, 0, 39, "GCDynamicEvent", "GC/DynamicTraceEvent", "Name:wstr,DataSize:u32" },
    { RT, 0, 50, "ThreadPoolWorkerThreadStart", "ThreadPoolWorkerThread/Start", TP_WORKER },
    { RT, 0, 51, "ThreadPoolWorkerThreadStop", "ThreadPoolWorkerThread/Stop", TP_WORKER },
    { RT, 0, 52, "ThreadPoolWorkerThreadRetirementStart", "ThreadPoolWorkerThreadRetirement/Start",
      TP_WORKER },
    { RT, 0, 53, "ThreadPoolWorkerThreadRetirementStop", "ThreadPoolWorkerThreadRetirement/Stop",
      TP_WORKER },
    { RT, 0, 54, "ThreadPoolWorkerThreadAdjustmentSample",
      "ThreadPoolWorkerThreadAdjustment/Sample", "Throughput:f64" CLR },
    { RT, 0, 55, "ThreadPoolWorkerThreadAdjustmentAdjustment",
      "ThreadPoolWorkerThreadAdjustment/Adjustment",
      "AverageThroughput:f64,NewWorkerThreadCount:u32,Reason:u32" CLR },
    { RT, 0, 56, "ThreadPoolWorkerThreadAdjustmentStats", "ThreadPoolWorkerThreadAdjustment/Stats",
      "Duration:f64,Throughput:f64,ThreadWave:f64,ThroughputWave:f64,ThroughputErrorEstimate:f64,AverageThroughputErrorEstimate:f64,ThroughputRatio:f64,Confidence:f64,NewControlSetting:f64,NewThreadWaveMagnitude:u16" CLR },
    { RT, 0, 57, "ThreadPoolWorkerThreadWait", "ThreadPoolWorkerThread/Wait", TP_WORKER },
    { RT, 0, 58, "YieldProcessorMeasurement", "YieldProcessorMeasurement",
      "ClrInstanceID:u16,NsPerYield:f64,EstablishedNsPerYield:f64" },
    { RT, 0, 59, "ThreadPoolMinMaxThreads", "ThreadPoolMinMaxThreads",
      "MinWorkerThreads:u16,MaxWorkerThreads:u16,MinIOCompletionThreads:u16,MaxIOCompletionThreads:u16" CLR },
    { RT, 0, 60, "ThreadPoolWorkingThreadCount", "ThreadPoolWorkingThreadCount/Start",
      "Count:u32" CLR },
    { RT, 0, 61, "ThreadPoolEnqueue", "ThreadPool/Enqueue", "WorkID:ptr" CLR },
    { RT, 0, 62, "ThreadPoolDequeue", "ThreadPool/Dequeue", "WorkID:ptr" CLR },
    { RT, 0, 63, "ThreadPoolIOEnqueue", "ThreadPool/IOEnqueue",
      "NativeOverlapped:ptr,Overlapped:ptr,MultiDequeues:b32" CLR },
    { RT, 0, 64, "ThreadPoolIODequeue", "ThreadPool/IODequeue",
      "NativeOverlapped:ptr,Overlapped:ptr" CLR },
    { RT, 0, 65, "ThreadPoolIOPack", "ThreadPool/IOPack",
      "NativeOverlapped:ptr,Overlapped:ptr" CLR },
    { RT, 0, 70, "ThreadCreating", "Thread/Creating", "ID:ptr" CLR },
    { RT, 0, 71, "ThreadRunning", "Thread/Running", "ID:ptr" CLR },
    { RT, 1, 80, "ExceptionThrown_V1", "Exception/Start",
      "ExceptionType:wstr,ExceptionMessage:wstr,ExceptionEIP:ptr,ExceptionHRESULT:u32,ExceptionFlags:u16" CLR },
    { RT, 0, 81, "ContentionStart", "Contention/Start", "ContentionFlags:u8" CLR },
    { RT, 1, 81, "ContentionStart_V1", "Contention/Start", "ContentionFlags:u8" CLR },
    { RT, 2, 81, "ContentionStart_V2", "Contention/Start",
      "ContentionFlags:u8" CLR ",LockID:ptr,AssociatedObjectID:ptr,LockOwnerThreadID:u64" },
    { RT, 0, 85, "ThreadCreated", "AppDomainResourceManagement/ThreadCreated",
      "ManagedThreadID:u64,AppDomainID:u64,Flags:u32,ManagedThreadIndex:u32,OSThreadID:u32" CLR },
    { RT, 0, 90, "ContentionLockCreated", "Contention/LockCreated",
      "LockID:ptr,AssociatedObjectID:ptr" CLR },
    { RT, 0, 91, "ContentionStop", "Contention/Stop", "ContentionFlags:u8" CLR },
    { RT, 1, 91, "ContentionStop_V1", "Contention/Stop",
      "ContentionFlags:u8" CLR ",DurationNs:f64" },
    { RT, 0, 141, "MethodLoad", "Method/Load", METHOD_V0 },
    { RT, 1, 141, "MethodLoad_V1", "Method/Load", METHOD_V0 CLR },
    { RT, 2, 141, "MethodLoad_V2", "Method/Load", METHOD_V0 CLR ",ReJITID:u64" },
    { RT, 0, 142, "MethodUnload", "Method/Unload", METHOD_V0 },
    { RT, 1, 142, "MethodUnload_V1", "Method/Unload", METHOD_V0 CLR },
    { RT, 2, 142, "MethodUnload_V2", "Method/Unload", METHOD_V0 CLR ",ReJITID:u64" },
    { RT, 0, 143, "MethodLoadVerbose", "Method/LoadVerbose", METHODV_V0 },
    { RT, 1, 143, "MethodLoadVerbose_V1", "Method/LoadVerbose", METHODV_V0 CLR },
    { RT, 2, 143, "MethodLoadVerbose_V2", "Method/LoadVerbose", METHODV_V0 CLR ",ReJITID:u64" },
    { RT, 0, 144, "MethodUnloadVerbose", "Method/UnloadVerbose", METHODV_V0 },
    { RT, 1, 144, "MethodUnloadVerbose_V1", "Method/UnloadVerbose", METHODV_V0 CLR },
    { RT, 2, 144, "MethodUnloadVerbose_V2", "Method/UnloadVerbose", METHODV_V0 CLR ",ReJITID:u64" },
    { RT, 0, 145, "MethodJittingStarted", "Method/JittingStarted",
      "MethodID:u64,ModuleID:u64,MethodToken:u32,MethodILSize:u32,MethodNamespace:wstr,MethodName:wstr,MethodSignature:wstr" },
    { RT, 1, 145, "MethodJittingStarted_V1", "Method/JittingStarted",
      "MethodID:u64,ModuleID:u64,MethodToken:u32,MethodILSize:u32,MethodNamespace:wstr,MethodName:wstr,MethodSignature:wstr" CLR },
    { RT, 0, 151, "DomainModuleLoad", "Loader/DomainModuleLoad", NULL },
    { RT, 1, 151, "DomainModuleLoad_V1", "Loader/DomainModuleLoad", DOMMODULE_V1 },
    { RT, 0, 152, "ModuleLoad", "Loader/ModuleLoad", MODULE_V0 },
    { RT, 1, 152, "ModuleLoad_V1", "Loader/ModuleLoad", MODULE_V0 CLR },
    { RT, 2, 152, "ModuleLoad_V2", "Loader/ModuleLoad", MODULE_V2 },
    { RT, 0, 153, "ModuleUnload", "Loader/ModuleUnload", MODULE_V0 },
    { RT, 1, 153, "ModuleUnload_V1", "Loader/ModuleUnload", MODULE_V0 CLR },
    { RT, 2, 153, "ModuleUnload_V2", "Loader/ModuleUnload", MODULE_V2 },
    { RT, 1, 154, "AssemblyLoad_V1", "Loader/AssemblyLoad", ASSEMBLY_V1 },
    { RT, 1, 155, "AssemblyUnload_V1", "Loader/AssemblyUnload", ASSEMBLY_V1 },
    { RT, 1, 156, "AppDomainLoad_V1", "Loader/AppDomainLoad", APPDOMAIN_V1 },
    { RT, 1, 157, "AppDomainUnload_V1", "Loader/AppDomainUnload", APPDOMAIN_V1 },
    { RT, 0, 159, "R2RGetEntryPoint", "Method/R2RGetEntryPoint",
      "MethodID:u64,MethodNamespace:wstr,MethodName:wstr,MethodSignature:wstr,EntryPoint:u64" CLR },
    { RT, 0, 160, "R2RGetEntryPointStart", "Method/R2RGetEntryPointStart", "MethodID:u64" CLR },
    { RT, 0, 185, "MethodJitInliningSucceeded", "Method/InliningSucceeded", NULL },
    { RT, 0, 186, "MethodJitInliningFailed", "Method/InliningFailed", NULL },
    { RT, 0, 187, "RuntimeInformationStart", "Runtime/Start", RUNTIME_INFO },
    { RT, 0, 188, "MethodJitTailCallSucceeded", "Method/TailCallSucceeded", NULL },
    { RT, 0, 189, "MethodJitTailCallFailed", "Method/TailCallFailed", NULL },
    { RT, 0, 190, "MethodILToNativeMap", "Method/ILToNativeMap", ILMAP_V0 },
    { RT, 0, 200, "IncreaseMemoryPressure", "EventID(200)", "BytesAllocated:u64" CLR },
    { RT, 0, 201, "DecreaseMemoryPressure", "EventID(201)", "BytesFreed:u64" CLR },
    { RT, 0, 202, "GCMarkWithType", "GC/MarkWithType",
      "HeapNum:u32,ClrInstanceID:u16,Type:u32,Bytes:u64" },
    { RT, 2, 203, "GCJoin_V2", "GC/Join", "Heap:u32,JoinTime:u32,JoinType:u32" CLR ",JoinID:u32" },
    { RT, 3, 204, "GCPerHeapHistory_V3", "GC/PerHeapHistory",
      "ClrInstanceID:u16,FreeListAllocated:ptr,FreeListRejected:ptr,EndOfSegAllocated:ptr,CondemnedAllocated:ptr,PinnedAllocated:ptr,PinnedAllocatedAdvance:ptr,RunningFreeListEfficiency:u32,CondemnReasons0:u32,CondemnReasons1:u32,CompactMechanisms:u32,ExpandMechanisms:u32,HeapIndex:u32,ExtraGen0Commit:ptr,Count:u32" },
    { RT, 2, 205, "GCGlobalHeapHistory_V2", "GC/GlobalHeapHistory",
      "FinalYoungestDesired:u64,NumHeaps:i32,CondemnedGeneration:u32,Gen0ReductionCount:u32,Reason:u32,GlobalMechanisms:u32" CLR
      ",PauseMode:u32,MemoryPressure:u32" },
    { RT, 3, 205, "GCGlobalHeapHistory_V3", "GC/GlobalHeapHistory",
      "FinalYoungestDesired:u64,NumHeaps:i32,CondemnedGeneration:u32,Gen0ReductionCount:u32,Reason:u32,GlobalMechanisms:u32" CLR
      ",PauseMode:u32,MemoryPressure:u32,CondemnReasons0:u32,CondemnReasons1:u32" },
    { RT, 4, 205, "GCGlobalHeapHistory_V4", "GC/GlobalHeapHistory",
      "FinalYoungestDesired:u64,NumHeaps:i32,CondemnedGeneration:u32,Gen0ReductionCount:u32,Reason:u32,GlobalMechanisms:u32" CLR
      ",PauseMode:u32,MemoryPressure:u32,CondemnReasons0:u32,CondemnReasons1:u32,Count:u32" },
    { RT, 0, 209, "GCFitBucketInfo", "GC/FitBucketInfo", NULL },
    { RT, 0, 250, "ExceptionCatchStart", "ExceptionCatch/Start",
      "EntryEIP:u64,MethodID:u64,MethodName:wstr" CLR },
    { RT, 0, 251, "ExceptionCatchStop", "ExceptionCatch/Stop", "" },
    { RT, 0, 252, "ExceptionFinallyStart", "ExceptionFinally/Start",
      "EntryEIP:u64,MethodID:u64,MethodName:wstr" CLR },
    { RT, 0, 253, "ExceptionFinallyStop", "ExceptionFinally/Stop", "" },
    { RT, 0, 254, "ExceptionFilterStart", "ExceptionFilter/Start",
      "EntryEIP:u64,MethodID:u64,MethodName:wstr" CLR },
    { RT, 0, 255, "ExceptionFilterStop", "ExceptionFilter/Stop", "" },
    { RT, 0, 256, "ExceptionThrownStop", "Exception/Stop", "" },
    { RT, 0, 280, "TieredCompilationSettings", "TieredCompilation/Settings",
      "ClrInstanceID:u16,Flags:u32" },
    { RT, 0, 281, "TieredCompilationPause", "TieredCompilation/Pause", "ClrInstanceID:u16" },
    { RT, 0, 282, "TieredCompilationResume", "TieredCompilation/Resume",
      "ClrInstanceID:u16,NewMethodCount:u32" },
    { RT, 0, 283, "TieredCompilationBackgroundJitStart", "TieredCompilation/BackgroundJitStart",
      "ClrInstanceID:u16,PendingMethodCount:u32" },
    { RT, 0, 284, "TieredCompilationBackgroundJitStop", "TieredCompilation/BackgroundJitStop",
      "ClrInstanceID:u16,PendingMethodCount:u32,JittedMethodCount:u32" },
    { RT, 0, 290, "AssemblyLoadStart", "AssemblyLoader/Start", NULL },
    { RT, 0, 291, "AssemblyLoadStop", "AssemblyLoader/Stop", NULL },
    { RT, 0, 292, "ResolutionAttempted", "AssemblyLoader/ResolutionAttempted", NULL },
    { RT, 0, 296, "KnownPathProbed", "AssemblyLoader/KnownPathProbed", NULL },
    { RT, 0, 65524, "GCCommittedUsage", "GC/CommittedUsage", NULL },

    { RD, 0, 10, "GCSettingsRundown", "GC/SettingsRundown", NULL },
    { RD, 0, 141, "MethodDCStart", "Method/DCStart", METHOD_V0 },
    { RD, 1, 141, "MethodDCStart_V1", "Method/DCStart", METHOD_V0 CLR },
    { RD, 2, 141, "MethodDCStart_V2", "Method/DCStart", METHOD_V0 CLR ",ReJITID:u64" },
    { RD, 0, 142, "MethodDCEnd", "Method/DCStop", METHOD_V0 },
    { RD, 1, 142, "MethodDCEnd_V1", "Method/DCStop", METHOD_V0 CLR },
    { RD, 2, 142, "MethodDCEnd_V2", "Method/DCStop", METHOD_V0 CLR ",ReJITID:u64" },
    { RD, 0, 143, "MethodDCStartVerbose", "Method/DCStartVerbose", METHODV_V0 },
    { RD, 1, 143, "MethodDCStartVerbose_V1", "Method/DCStartVerbose", METHODV_V0 CLR },
    { RD, 2, 143, "MethodDCStartVerbose_V2", "Method/DCStartVerbose",
      METHODV_V0 CLR ",ReJITID:u64" },
    { RD, 0, 144, "MethodDCEndVerbose", "Method/DCStopVerbose", METHODV_V0 },
    { RD, 1, 144, "MethodDCEndVerbose_V1", "Method/DCStopVerbose", METHODV_V0 CLR },
    { RD, 2, 144, "MethodDCEndVerbose_V2", "Method/DCStopVerbose", METHODV_V0 CLR ",ReJITID:u64" },
    { RD, 1, 145, "DCStartComplete_V1", "Method/DCStartComplete", "ClrInstanceID:u16" },
    { RD, 1, 146, "DCEndComplete_V1", "Method/DCStopComplete", "ClrInstanceID:u16" },
    { RD, 1, 147, "DCStartInit_V1", "Method/DCStartInit", "ClrInstanceID:u16" },
    { RD, 1, 148, "DCEndInit_V1", "Method/DCStopInit", "ClrInstanceID:u16" },
    { RD, 0, 149, "MethodDCStartILToNativeMap", "Method/ILToNativeMapDCStart", ILMAP_V0 },
    { RD, 0, 150, "MethodDCEndILToNativeMap", "Method/ILToNativeMapDCStop", ILMAP_V0 },
    { RD, 1, 150, "MethodDCEndILToNativeMap", "Method/ILToNativeMapDCStop", ILMAP_V0 },
    { RD, 1, 151, "DomainModuleDCStart_V1", "Loader/DomainModuleDCStart", DOMMODULE_V1 },
    { RD, 1, 152, "DomainModuleDCEnd_V1", "Loader/DomainModuleDCStop", DOMMODULE_V1 },
    { RD, 1, 153, "ModuleDCStart_V1", "Loader/ModuleDCStart", MODULE_V0 CLR },
    { RD, 2, 153, "ModuleDCStart_V2", "Loader/ModuleDCStart", MODULE_V2 },
    { RD, 1, 154, "ModuleDCEnd_V1", "Loader/ModuleDCStop", MODULE_V0 CLR },
    { RD, 2, 154, "ModuleDCEnd_V2", "Loader/ModuleDCStop", MODULE_V2 },
    { RD, 1, 155, "AssemblyDCStart_V1", "Loader/AssemblyDCStart", ASSEMBLY_V1 },
    { RD, 1, 156, "AssemblyDCEnd_V1", "Loader/AssemblyDCStop", ASSEMBLY_V1 },
    { RD, 1, 157, "AppDomainDCStart_V1", "Loader/AppDomainDCStart", APPDOMAIN_V1 },
    { RD, 1, 158, "AppDomainDCEnd_V1", "Loader/AppDomainDCStop", APPDOMAIN_V1 },
    { RD, 0, 159, "ThreadDC", "Thread/DCStop",
      "ManagedThreadID:u64,AppDomainID:u64,Flags:u32,ManagedThreadIndex:u32,OSThreadID:u32" CLR },
    { RD, 0, 187, "RuntimeInformationDCStart", "Runtime/Start", RUNTIME_INFO },
    { RD, 0, 300, "ExecutionCheckpointDCEnd", "ExecutionCheckpointRundown/ExecutionCheckpointDCEnd",
      "ClrInstanceID:u16,CheckpointName:wstr,CheckpointTimestamp:i64" },

    { SP, 0, 0, "ThreadSample", "Thread/Sample", "Type:u32" },

    { EP, 0, 1, "ProcessInfo", "ProcessInfo", "CommandLine:wstr" },
    { EP, 1, 1, "ProcessInfo", "ProcessInfo",
      "CommandLine:wstr,OSInformation:wstr,ArchInformation:wstr" },
};

/* Entries are listed by (provider, id) then version as written above:
 * written as { provider, VERSION, id } in source order, so search linearly
 * once per metadata entry (never per event). */
const nt_manifest_event *
nt_manifest_find(uint32_t provider, uint32_t event_id, uint32_t version, int *exact)
{
    const nt_manifest_event *best = NULL;

    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const nt_manifest_event *e = &table[i];
        if (e->provider != provider || e->event_id != event_id)
            continue;
        if (e->version == version) {
            *exact = 1;
            return e;
        }
        if (e->version < version && (!best || e->version > best->version))
            best = e;
    }
    *exact = 0;
    return best;
}
